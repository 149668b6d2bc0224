// The vendored etcd-client's build script (hack/etcd-client/vendor.sh puts it in place of
// upstream's): the same protos and tonic settings, compiled by protox, a protobuf
// compiler in Rust, so that building needs no `protoc` on the machine.

#[cfg(feature = "build-server")]
fn should_build_server() -> bool {
    true
}

#[cfg(not(feature = "build-server"))]
fn should_build_server() -> bool {
    false
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto_root = "proto";
    println!("cargo:rerun-if-changed={proto_root}");
    let protos = [
        "proto/etcd/api/authpb/auth.proto",
        "proto/etcd/api/etcdserverpb/rpc.proto",
        "proto/etcd/api/mvccpb/kv.proto",
        "proto/etcd/server/etcdserver/api/v3election/v3electionpb/v3election.proto",
        "proto/etcd/server/etcdserver/api/v3lock/v3lockpb/v3lock.proto",
    ];
    let descriptors = protox::compile(protos, [proto_root])?;
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR")?);
    let descriptor_path = out_dir.join("etcd-descriptors.bin");
    std::fs::write(&descriptor_path, prost::Message::encode_to_vec(&descriptors))?;
    tonic_prost_build::configure()
        .build_server(should_build_server())
        .file_descriptor_set_path(&descriptor_path)
        .skip_protoc_run()
        .compile_protos(&protos, &[proto_root])?;
    Ok(())
}
