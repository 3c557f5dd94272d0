"""Values fixed by the CANN ABI, mirrored from the headers under include/.

They are facts of the C interface (include/acl/acl_base.h, include/acl/acl_rt.h,
include/aclnn/opdev/op_errno.h), written down once here so that the rest of
the package names them instead of repeating numbers.
"""

# aclDataType (acl/acl_base.h): only the three the convolution operators accept.
ACL_FLOAT = 0
ACL_FLOAT16 = 1
ACL_BF16 = 27

# aclFormat (acl/acl_base.h).
ACL_FORMAT_NCHW = 0
ACL_FORMAT_ND = 2
ACL_FORMAT_NCDHW = 30
ACL_FORMAT_NCL = 47

# aclrtMemMallocPolicy (acl/acl_rt.h).
ACL_MEM_MALLOC_HUGE_FIRST = 0

# aclError / aclnnStatus values (acl/acl_base.h, aclnn/opdev/op_errno.h).
ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACLNN_SUCCESS = 0
ACLNN_ERR_PARAM_NULLPTR = 161001
ACLNN_ERR_PARAM_INVALID = 161002
ACLNN_ERR_RUNTIME_ERROR = 361001
ACLNN_ERR_INNER = 561000
ACLNN_ERR_INNER_NULLPTR = 561103

# cubeMathType (the aclnn convolution docs): value by name.
CUBE_MATH_TYPES = {
    "KEEP_DTYPE": 0,
    "ALLOW_FP32_DOWN_PRECISION": 1,
    "USE_FP16": 2,
    "USE_HF32": 3,
}


def conv_format(rank):
    """The storage format a convolution tensor of this view rank is created with."""
    return {1: ACL_FORMAT_ND, 3: ACL_FORMAT_NCL, 4: ACL_FORMAT_NCHW, 5: ACL_FORMAT_NCDHW}.get(
        rank, ACL_FORMAT_ND)
