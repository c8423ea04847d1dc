#ifndef REELFARM_CZEROMQ_SHIM_H
#define REELFARM_CZEROMQ_SHIM_H
#include <zmq.h>
#endif
