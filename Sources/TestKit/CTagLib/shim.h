#ifndef MEDIANODE_CTAGLIB_SHIM_H
#define MEDIANODE_CTAGLIB_SHIM_H
// TagLib's C API (Debian: libtagc0-dev). It reads tags and stream lengths from headers, without decoding.
#include <taglib/tag_c.h>
#endif
