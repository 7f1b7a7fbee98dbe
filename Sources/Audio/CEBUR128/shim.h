#ifndef MEDIANODE_CEBUR128_SHIM_H
#define MEDIANODE_CEBUR128_SHIM_H
#include <ebur128.h>

// libebur128 imports as it is; this header exists to give the module map one place to include it.

/// Wrapper for the mode flags, which Swift imports as separate enum cases it cannot OR into an int.
static inline int mn_ebur128_integrated_and_peak(void) { return EBUR128_MODE_I | EBUR128_MODE_SAMPLE_PEAK; }

#endif
