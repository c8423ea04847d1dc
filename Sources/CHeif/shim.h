#ifndef REELFARM_CHEIF_SHIM_H
#define REELFARM_CHEIF_SHIM_H

// libheif 1.15 (Debian 12): HEIC photos, decoded through libde265 (docs/geometry.md).
#include <libheif/heif.h>

#endif
