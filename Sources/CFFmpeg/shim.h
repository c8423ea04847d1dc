#ifndef REELFARM_CFFMPEG_SHIM_H
#define REELFARM_CFFMPEG_SHIM_H

// FFmpeg 5.1 (Debian 12). Swift imports no function-like macros, so the few we need
// are re-exposed here as prefixed inline functions and constants.
#include <errno.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/cpu.h>
#include <libavutil/channel_layout.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libavutil/mathematics.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>

static inline int CFFmpeg_AVERROR(int e) { return AVERROR(e); }
static inline int CFFmpeg_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int CFFmpeg_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int64_t CFFmpeg_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline int CFFmpeg_AV_ERROR_MAX_STRING_SIZE(void) { return AV_ERROR_MAX_STRING_SIZE; }
static inline AVRational CFFmpeg_AV_TIME_BASE_Q(void) { return AV_TIME_BASE_Q; }
static inline int CFFmpeg_LIBAVFORMAT_VERSION_MAJOR(void) { return LIBAVFORMAT_VERSION_MAJOR; }
static inline int CFFmpeg_LIBAVCODEC_VERSION_MAJOR(void) { return LIBAVCODEC_VERSION_MAJOR; }

#endif
