#include "ops/common/op_status.h"

#include <cstdarg>
#include <cstdio>

#include "common/error_log.h"

namespace aclcpu {
namespace ops {

aclnnStatus fail(aclnnStatus status, const char* api, const char* format, ...) {
  char body[1024];
  va_list args;
  va_start(args, format);
  std::vsnprintf(body, sizeof(body), format, args);
  va_end(args);
  recordErrorf("%s failed (status %d): %s", api, status, body);
  return status;
}

std::string shapeString(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::string dataTypeName(int type) {
  switch (type) {
    case ACL_FLOAT:
      return "FLOAT";
    case ACL_FLOAT16:
      return "FLOAT16";
    case ACL_BF16:
      return "BF16";
    case ACL_DOUBLE:
      return "DOUBLE";
    case ACL_INT8:
      return "INT8";
    case ACL_INT16:
      return "INT16";
    case ACL_INT32:
      return "INT32";
    case ACL_INT64:
      return "INT64";
    case ACL_UINT8:
      return "UINT8";
    case ACL_BOOL:
      return "BOOL";
    case ACL_COMPLEX64:
      return "COMPLEX64";
    case ACL_COMPLEX128:
      return "COMPLEX128";
    case ACL_DT_UNDEFINED:
      return "UNDEFINED";
    default:
      return "dtype " + std::to_string(type);
  }
}

std::string formatName(int format) {
  switch (format) {
    case ACL_FORMAT_ND:
      return "ND";
    case ACL_FORMAT_NCL:
      return "NCL";
    case ACL_FORMAT_NCHW:
      return "NCHW";
    case ACL_FORMAT_NHWC:
      return "NHWC";
    case ACL_FORMAT_NCDHW:
      return "NCDHW";
    case ACL_FORMAT_NDHWC:
      return "NDHWC";
    case ACL_FORMAT_UNDEFINED:
      return "UNDEFINED";
    default:
      return "format " + std::to_string(format);
  }
}

}  // namespace ops
}  // namespace aclcpu
