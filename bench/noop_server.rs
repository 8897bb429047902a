//! The benchmark's baseline: a no-op axum handler on `POST /v1/evaluate` that reads the body and
//! answers `{}`, on the same runtime settings and allocator as toolgate. `cargo run --release
//! --example noop_server -- 127.0.0.1:9090`.

use axum::Router;
use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::post;

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

async fn evaluate_noop(body: Bytes) -> impl IntoResponse {
    let _ = body.len();
    ([(header::CONTENT_TYPE, "application/json")], "{}")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:9090".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    eprintln!("noop server listening on {}", listener.local_addr()?);
    let router = Router::new().route("/v1/evaluate", post(evaluate_noop));
    axum::serve(listener, router).await
}
