#ifndef REELFARM_CPOSTGRES_SHIM_H
#define REELFARM_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
