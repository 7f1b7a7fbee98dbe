#ifndef MEDIANODE_CGLIB_SHIM_H
#define MEDIANODE_CGLIB_SHIM_H
#include <glib.h>
#endif
