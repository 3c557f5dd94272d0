/*
 * aclnn-cpu public header: export marker for operator entry points.
 */
#ifndef OP_API_ACLNN_UTIL_H_
#define OP_API_ACLNN_UTIL_H_

#define ACLNN_API __attribute__((visibility("default")))

#endif /* OP_API_ACLNN_UTIL_H_ */
