//! Test fixture: a KMS v2 plugin of our own (k8s.io/kms `v2.KeyManagementService` over
//! gRPC on a unix socket in a temporary dir), on its own thread and runtime so that it
//! answers while the test blocks. It encrypts with AES-256-GCM under a random key per key
//! ID (so a value encrypted under an old key ID still decrypts after a rotation), counts
//! the Status, Encrypt and Decrypt calls, and can rotate its key ID, answer unhealthy, or
//! fail every call with `Unavailable`.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crd_apiserver::storage::encryption::kms::api;
use futures::future::BoxFuture;
use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use tonic::body::Body;
use tonic_prost::ProstCodec;

/// What the plugin counts and how it answers (shared with its gRPC service).
#[derive(Default)]
pub struct PluginState {
    key_id: Mutex<String>,
    keys: Mutex<HashMap<String, Arc<LessSafeKey>>>,
    pub down: AtomicBool,
    pub unhealthy: AtomicBool,
    pub statuses: AtomicUsize,
    pub encrypts: AtomicUsize,
    pub decrypts: AtomicUsize,
}

/// A running plugin; stopped (and its socket removed) on drop.
pub struct KmsPlugin {
    pub state: Arc<PluginState>,
    pub dir: tempfile::TempDir,
    pub socket: PathBuf,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl KmsPlugin {
    /// A plugin answering on `<tempdir>/kms.sock` with key ID `key_id`.
    pub fn start(key_id: &str) -> KmsPlugin {
        let dir = tempfile::tempdir().expect("plugin dir");
        let state = Arc::new(PluginState::default());
        state.rotate(key_id);
        Self::serve(state, dir)
    }

    fn serve(state: Arc<PluginState>, dir: tempfile::TempDir) -> KmsPlugin {
        let socket = dir.path().join("kms.sock");
        let _ = std::fs::remove_file(&socket);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, is_ready) = std::sync::mpsc::channel();
        let (path, shared) = (socket.clone(), state.clone());
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .expect("plugin runtime");
            runtime.block_on(async move {
                let listener =
                    tokio::net::UnixListener::bind(&path).expect("bind the plugin socket");
                ready.send(()).expect("ready");
                let incoming = futures::stream::unfold(listener, |listener| async move {
                    let accepted = listener.accept().await.map(|(stream, _)| stream);
                    Some((accepted, listener))
                });
                let serve = tonic::transport::Server::builder()
                    .add_service(PluginService(shared))
                    .serve_with_incoming(incoming);
                // Stopping drops the runtime and with it every open connection at once (a
                // graceful stop would wait for clients that may be blocked on this test).
                tokio::select! {
                    served = serve => served.expect("plugin server"),
                    _ = stopped => {}
                }
            });
            runtime.shutdown_background();
        });
        is_ready.recv().expect("the plugin listens");
        KmsPlugin {
            state,
            dir,
            socket,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    /// `unix:///…/kms.sock`.
    pub fn endpoint(&self) -> String {
        format!("unix://{}", self.socket.display())
    }

    /// Stops answering (the socket goes away).
    pub fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
            let _ = std::fs::remove_file(&self.socket);
        }
    }

    /// Answers again on the same socket with the same keys and counts.
    pub fn restart(mut self) -> KmsPlugin {
        self.stop();
        let state = self.state.clone();
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().expect("dir"));
        Self::serve(state, dir)
    }

    pub fn encrypts(&self) -> usize {
        self.state.encrypts.load(Ordering::SeqCst)
    }
    pub fn decrypts(&self) -> usize {
        self.state.decrypts.load(Ordering::SeqCst)
    }
    pub fn statuses(&self) -> usize {
        self.state.statuses.load(Ordering::SeqCst)
    }
}

impl Drop for KmsPlugin {
    fn drop(&mut self) {
        self.stop();
    }
}

impl PluginState {
    /// Makes `key_id` the write key (a new random KEK the first time it is seen).
    pub fn rotate(&self, key_id: &str) {
        let mut bytes = [0u8; 32];
        SystemRandom::new().fill(&mut bytes).unwrap();
        let key = LessSafeKey::new(UnboundKey::new(&AES_256_GCM, &bytes).unwrap());
        self.keys
            .lock()
            .unwrap()
            .entry(key_id.to_owned())
            .or_insert_with(|| Arc::new(key));
        *self.key_id.lock().unwrap() = key_id.to_owned();
    }

    /// Every call fails with `Unavailable` while set.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, Ordering::SeqCst);
    }

    fn check_up(&self) -> Result<(), tonic::Status> {
        if self.down.load(Ordering::SeqCst) {
            return Err(tonic::Status::unavailable("the test plugin is down"));
        }
        Ok(())
    }

    fn status(&self) -> Result<api::StatusResponse, tonic::Status> {
        self.statuses.fetch_add(1, Ordering::SeqCst);
        self.check_up()?;
        let healthz = if self.unhealthy.load(Ordering::SeqCst) {
            "the test plugin is unhealthy"
        } else {
            "ok"
        };
        Ok(api::StatusResponse {
            version: "v2".into(),
            healthz: healthz.into(),
            key_id: self.key_id.lock().unwrap().clone(),
        })
    }

    fn encrypt(&self, request: api::EncryptRequest) -> Result<api::EncryptResponse, tonic::Status> {
        self.encrypts.fetch_add(1, Ordering::SeqCst);
        self.check_up()?;
        let key_id = self.key_id.lock().unwrap().clone();
        let key = self.keys.lock().unwrap()[&key_id].clone();
        let mut nonce = [0u8; NONCE_LEN];
        SystemRandom::new().fill(&mut nonce).unwrap();
        let mut sealed = request.plaintext;
        key.seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::empty(),
            &mut sealed,
        )
        .unwrap();
        Ok(api::EncryptResponse {
            ciphertext: [nonce.as_slice(), &sealed].concat(),
            key_id,
            annotations: [("version.kms.example.com".to_owned(), b"1".to_vec())].into(),
        })
    }

    fn decrypt(&self, request: api::DecryptRequest) -> Result<api::DecryptResponse, tonic::Status> {
        self.decrypts.fetch_add(1, Ordering::SeqCst);
        self.check_up()?;
        let key = self.keys.lock().unwrap().get(&request.key_id).cloned();
        let key = key.ok_or_else(|| tonic::Status::invalid_argument("unknown key ID"))?;
        if request.ciphertext.len() < NONCE_LEN {
            return Err(tonic::Status::invalid_argument("short ciphertext"));
        }
        let (nonce, sealed) = request.ciphertext.split_at(NONCE_LEN);
        let mut buf = sealed.to_vec();
        let nonce = Nonce::try_assume_unique_for_key(nonce).unwrap();
        let plaintext = key
            .open_in_place(nonce, Aad::empty(), &mut buf)
            .map_err(|_| tonic::Status::invalid_argument("cannot decrypt"))?
            .to_vec();
        Ok(api::DecryptResponse { plaintext })
    }
}

/// `v2.KeyManagementService`, routed by hand (no generated code).
#[derive(Clone)]
struct PluginService(Arc<PluginState>);

impl tonic::server::NamedService for PluginService {
    const NAME: &'static str = "v2.KeyManagementService";
}

impl tower::Service<http::Request<Body>> for PluginService {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let state = self.0.clone();
        Box::pin(async move {
            let response = match request.uri().path() {
                api::STATUS_PATH => {
                    let handler =
                        tower::service_fn(move |_: tonic::Request<api::StatusRequest>| {
                            let state = state.clone();
                            async move { state.status().map(tonic::Response::new) }
                        });
                    grpc::<api::StatusResponse, api::StatusRequest>()
                        .unary(handler, request)
                        .await
                }
                api::ENCRYPT_PATH => {
                    let handler =
                        tower::service_fn(move |r: tonic::Request<api::EncryptRequest>| {
                            let state = state.clone();
                            async move { state.encrypt(r.into_inner()).map(tonic::Response::new) }
                        });
                    grpc::<api::EncryptResponse, api::EncryptRequest>()
                        .unary(handler, request)
                        .await
                }
                api::DECRYPT_PATH => {
                    let handler =
                        tower::service_fn(move |r: tonic::Request<api::DecryptRequest>| {
                            let state = state.clone();
                            async move { state.decrypt(r.into_inner()).map(tonic::Response::new) }
                        });
                    grpc::<api::DecryptResponse, api::DecryptRequest>()
                        .unary(handler, request)
                        .await
                }
                _ => tonic::Status::unimplemented("no such method").into_http(),
            };
            Ok(response)
        })
    }
}

fn grpc<E, D>() -> tonic::server::Grpc<ProstCodec<E, D>>
where
    E: prost::Message + Send + 'static,
    D: prost::Message + Default + Send + 'static,
{
    tonic::server::Grpc::new(ProstCodec::default())
}
