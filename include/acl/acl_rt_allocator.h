/*
 * aclnn-cpu public header: custom-allocator hooks. CANN's acl_rt.h includes
 * this file; the allocator handle typedefs live in acl_base_rt.h and no
 * allocator registration API is provided by this library.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
