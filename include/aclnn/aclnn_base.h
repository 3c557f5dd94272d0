/*
 * aclnn-cpu public header: aclnn library init/finalize. Either aclInit or
 * aclnnInit initialises the library; calling both is fine.
 */
#ifndef OP_API_ACLNN_BASE_H_
#define OP_API_ACLNN_BASE_H_

#include <cstdint>
#include <cstdlib>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclnnStatus aclnnInit(const char* configPath);
ACL_FUNC_VISIBILITY aclnnStatus aclnnFinalize();

#ifdef __cplusplus
}
#endif

#endif /* OP_API_ACLNN_BASE_H_ */
