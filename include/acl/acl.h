/*
 * aclnn-cpu public header: the umbrella header CANN programs include.
 * aclInit, aclFinalize, aclGetRecentErrMsg and friends come from acl_rt.h.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

/* CANN samples call printf after including only C++ headers. */
#include <stdio.h>

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
