/* The peer of bench/stills: libav used as an expert would, in one process that keeps
 * the clip open. For each time: seek to the keyframe before it (backward), decode with
 * frame threads on every core until the frame shown at the time (exact) or take the
 * keyframe itself (keyframe), scale to 320x180 with libswscale, encode a JPEG (mjpeg).
 * Prints one line per time: "<exact ms> <keyframe ms>".
 *
 *   stills-peer CLIP T1 T2 ...
 */
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(const char *what) { fprintf(stderr, "stills-peer: %s\n", what); exit(1); }

static AVFormatContext *fmt;
static AVCodecContext *dec;
static int vi;

static void jpeg(const AVFrame *f) {
    struct SwsContext *sws = sws_getContext(f->width, f->height, f->format, 320, 180, AV_PIX_FMT_YUVJ420P, SWS_BICUBIC, NULL, NULL, NULL);
    AVFrame *small = av_frame_alloc();
    small->format = AV_PIX_FMT_YUVJ420P; small->width = 320; small->height = 180;
    av_frame_get_buffer(small, 0);
    sws_scale(sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, small->data, small->linesize);
    const AVCodec *mj = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
    AVCodecContext *enc = avcodec_alloc_context3(mj);
    enc->width = 320; enc->height = 180; enc->pix_fmt = AV_PIX_FMT_YUVJ420P; enc->time_base = (AVRational){1, 30};
    if (avcodec_open2(enc, mj, NULL) < 0) fail("mjpeg");
    AVPacket *p = av_packet_alloc();
    avcodec_send_frame(enc, small);
    avcodec_send_frame(enc, NULL);
    while (avcodec_receive_packet(enc, p) == 0) av_packet_unref(p);
    av_packet_free(&p);
    avcodec_free_context(&enc);
    av_frame_free(&small);
    sws_freeContext(sws);
}

/* The frame shown at `seconds` (exact) or the keyframe at or before it. */
static double picture(double seconds, int keyframe_only) {
    double start = now_ms();
    AVStream *st = fmt->streams[vi];
    int64_t ts = (int64_t)(seconds / av_q2d(st->time_base)) + (st->start_time == AV_NOPTS_VALUE ? 0 : st->start_time);
    if (av_seek_frame(fmt, vi, ts, AVSEEK_FLAG_BACKWARD) < 0) fail("seek");
    avcodec_flush_buffers(dec);
    dec->skip_frame = keyframe_only ? AVDISCARD_NONKEY : AVDISCARD_DEFAULT;
    AVPacket *p = av_packet_alloc();
    AVFrame *f = av_frame_alloc(), *shown = av_frame_alloc();
    int have = 0, done = 0, eof = 0;
    int64_t limit = ts + (int64_t)(0.001 / av_q2d(st->time_base));
    while (!done) {
        if (!eof) {
            int r = av_read_frame(fmt, p);
            if (r < 0) { eof = 1; avcodec_send_packet(dec, NULL); }
            else if (p->stream_index != vi) { av_packet_unref(p); continue; }
            else { avcodec_send_packet(dec, p); av_packet_unref(p); }
        }
        for (;;) {
            int r = avcodec_receive_frame(dec, f);
            if (r < 0) { if (eof) done = 1; break; }
            if (keyframe_only || f->best_effort_timestamp > limit) {
                if (keyframe_only || !have) { av_frame_unref(shown); av_frame_move_ref(shown, f); have = 1; }
                done = 1;
                break;
            }
            av_frame_unref(shown); av_frame_move_ref(shown, f); have = 1;
        }
    }
    if (!have) fail("no frame");
    jpeg(shown);
    av_frame_free(&f); av_frame_free(&shown); av_packet_free(&p);
    return now_ms() - start;
}

int main(int argc, char **argv) {
    if (argc < 3) fail("usage: stills-peer CLIP T1 T2 ...");
    av_log_set_level(AV_LOG_ERROR);
    if (avformat_open_input(&fmt, argv[1], NULL, NULL) < 0 || avformat_find_stream_info(fmt, NULL) < 0) fail("open");
    vi = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (vi < 0) fail("no video");
    for (unsigned i = 0; i < fmt->nb_streams; i++) if ((int)i != vi) fmt->streams[i]->discard = AVDISCARD_ALL;
    const AVCodec *codec = avcodec_find_decoder(fmt->streams[vi]->codecpar->codec_id);
    dec = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(dec, fmt->streams[vi]->codecpar);
    dec->thread_count = 0;   /* every core, as ffmpeg does */
    if (avcodec_open2(dec, codec, NULL) < 0) fail("decoder");
    for (int i = 2; i < argc; i++) {
        double t = atof(argv[i]);
        double exact = picture(t, 0), key = picture(t, 1);
        printf("%.3f %.3f\n", exact, key);
    }
    return 0;
}
