// aclTensorList and aclScalarList: arrays of handles. Creation copies the
// pointers, not the objects; destroying a list destroys every element (the
// upstream contract), each distinct element once.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "common/error_log.h"
#include "meta/c_boundary.h"
#include "meta/meta_types.h"

namespace {

// A null `values` with a non-zero size gives an empty list, like the value
// arrays: there is nothing to read, and an empty list is always safe to use.
template <typename List, typename Element>
List* createList(const char* api, const Element* const* values, uint64_t size,
                 std::vector<Element*> List::*field) {
  return aclcpu::callNoThrow(api, static_cast<List*>(nullptr), [&]() {
    auto list = std::make_unique<List>();
    if (values != nullptr) {
      auto& elements = (*list).*field;
      elements.reserve(size);
      for (uint64_t i = 0; i < size; ++i) elements.push_back(const_cast<Element*>(values[i]));
    }
    return list.release();
  });
}

// Deletes the list and its elements; an element listed twice is deleted once.
// The quadratic duplicate scan needs no allocation, so destruction cannot fail.
template <typename List, typename Element>
void destroyList(const List* list, std::vector<Element*> List::*field) {
  if (list == nullptr) return;
  const std::vector<Element*>& elements = list->*field;
  for (size_t i = 0; i < elements.size(); ++i) {
    const bool seenBefore =
        std::find(elements.begin(), elements.begin() + i, elements[i]) != elements.begin() + i;
    if (!seenBefore) delete elements[i];
  }
  delete list;
}

template <typename List, typename Element>
aclnnStatus listSize(const char* api, const List* list, uint64_t* size,
                     std::vector<Element*> List::*field) {
  if (list == nullptr) {
    aclcpu::recordErrorf("%s: argument list: expected a non-null list, got nullptr", api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (size == nullptr) {
    aclcpu::recordErrorf("%s: argument size: expected a non-null output pointer, got nullptr", api);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  *size = (list->*field).size();
  return ACLNN_SUCCESS;
}

}  // namespace

aclTensorList* aclCreateTensorList(const aclTensor* const* value, uint64_t size) {
  return createList("aclCreateTensorList", value, size, &aclTensorList::tensors);
}

aclScalarList* aclCreateScalarList(const aclScalar* const* value, uint64_t size) {
  return createList("aclCreateScalarList", value, size, &aclScalarList::scalars);
}

aclnnStatus aclDestroyTensorList(const aclTensorList* array) {
  destroyList(array, &aclTensorList::tensors);
  return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalarList(const aclScalarList* array) {
  destroyList(array, &aclScalarList::scalars);
  return ACLNN_SUCCESS;
}

aclnnStatus aclGetTensorListSize(const aclTensorList* tensorList, uint64_t* size) {
  return listSize("aclGetTensorListSize", tensorList, size, &aclTensorList::tensors);
}

aclnnStatus aclGetScalarListSize(const aclScalarList* scalarList, uint64_t* size) {
  return listSize("aclGetScalarListSize", scalarList, size, &aclScalarList::scalars);
}
