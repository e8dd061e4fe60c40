# One image for every service; the command chooses which runs (ledger, draw-games, table-games, instant, gateway, or lotto).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin ledger --bin draw-games --bin table-games --bin instant --bin gateway --bin lotto

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 lotto \
 && install -d -o 10001 -g 10001 -m 0750 /var/lib/lotto
COPY --from=build /src/target/release/ledger /src/target/release/draw-games /src/target/release/table-games /src/target/release/instant /src/target/release/gateway \
     /src/target/release/lotto /usr/local/bin/
USER 10001
# The services write only under /var/lib/lotto (a volume: printer's files, vendor inbox, exports,
# demonstration keys); a volume mounted there takes this directory's owner.
WORKDIR /
VOLUME /var/lib/lotto
ENV LOTTO_LISTEN=0.0.0.0:8080 LOTTO_LOG_FORMAT=json
EXPOSE 8080
CMD ["gateway"]
