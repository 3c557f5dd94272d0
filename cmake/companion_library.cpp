// A CANN-named companion library (libnnopbase, libopapi, libopapi_nn,
// libopapi_math). Its only job is to exist and to pull in libascendcl, which
// implements the whole API; see cmake/libraries.cmake.
