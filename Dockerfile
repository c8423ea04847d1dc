# ReelFarm: one image for the coordinator, the workers and the client.
#   docker build -t reelfarm .
#   docker run --rm reelfarm --version
# Debian 12 gives FFmpeg 5.1, the version the engine is written against (docs/architecture.md).

FROM swift:6.0-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      pkg-config libzmq3-dev libavformat-dev libavcodec-dev libavutil-dev libswscale-dev \
      libavfilter-dev libswresample-dev liblz4-dev libsqlite3-dev libheif-dev libcurl4-openssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so source edits do not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
COPY Tests ./Tests
COPY bench ./bench
# -lcurl: the static Foundation's URLSession (webhooks) calls libcurl.
RUN swift build -c release --product reel --static-swift-stdlib -Xlinker -lcurl \
    && install -D .build/release/reel /out/usr/local/bin/reel
# The shipped looks, where `reel` finds them beside the installed binary (docs/filters.md).
COPY looks/*.png looks/*.json /out/usr/local/share/reelfarm/looks/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      libavformat59 libavcodec59 libavutil57 libswscale6 libavfilter8 libswresample4 \
      libzmq5 liblz4-1 libsqlite3-0 libheif1 ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /var/lib/reelfarm --create-home reel \
    && install -d -o reel -g reel /var/lib/reelfarm/state /var/cache/reelfarm
COPY --from=build /out/ /
USER reel
WORKDIR /var/lib/reelfarm
ENTRYPOINT ["reel"]
CMD ["--help"]
