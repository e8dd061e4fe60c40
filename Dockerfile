# One image for every service; the command chooses which runs (ledger, draw-games, table-games, instant, gateway, or lotto).
FROM rust:1.95-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin ledger --bin draw-games --bin table-games --bin instant --bin gateway --bin lotto

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 lotto
COPY --from=build /src/target/release/ledger /src/target/release/draw-games /src/target/release/table-games /src/target/release/instant /src/target/release/gateway \
     /src/target/release/lotto /usr/local/bin/
USER 10001
ENV LOTTO_LISTEN=0.0.0.0:8080 LOTTO_LOG_FORMAT=json
EXPOSE 8080
CMD ["gateway"]
