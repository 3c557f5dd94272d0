#pragma once
// Included first by every file compiled with AVX-512, before <immintrin.h>:
// GCC 12 reports the undefined placeholder vectors inside its own masked,
// broadcast, shuffle, extract and conversion intrinsics as uninitialised
// (-Wmaybe-uninitialized, -Wuninitialized); the lanes they leave undefined
// are always masked off or overwritten. The pragmas hold for the rest of
// the including file.

#if !defined(__clang__)  // a GCC-only warning group
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#pragma GCC diagnostic ignored "-Wuninitialized"
