//! The `crd-apiserver` binary: flags, logging, and the server's exit code.

use clap::Parser;
use crd_apiserver::config::{Cli, Command, LogFormat};
use crd_apiserver::server::{dev, run};

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    if format == LogFormat::Json {
        builder.json().init();
    } else {
        builder.init();
    }
}

#[tokio::main]
async fn main() {
    crd_apiserver::server::mark_process_start();
    let cli = Cli::parse();
    let (flags, dev_pki) = match cli.command {
        Some(Command::Migrate(flags)) => {
            init_logging(LogFormat::Text);
            crd_apiserver::server::tls::install_crypto_provider();
            if let Err(e) = crd_apiserver::migrate::run(flags).await {
                eprintln!("crd-apiserver migrate: {e}");
                std::process::exit(e.exit_code());
            }
            return;
        }
        Some(Command::Unregister(flags)) => {
            init_logging(LogFormat::Text);
            crd_apiserver::server::tls::install_crypto_provider();
            let mut out = std::io::stdout();
            match crd_apiserver::register::unregister::run(&flags, &mut out).await {
                Ok(0) => eprintln!("crd-apiserver unregister: no APIServices of ours found"),
                Ok(_) => {}
                Err(e) => {
                    eprintln!("crd-apiserver unregister: {e}");
                    std::process::exit(1);
                }
            }
            return;
        }
        // Filled in by the offload work (issue 34).
        Some(Command::Offload(_)) => {
            eprintln!("crd-apiserver: not built yet");
            std::process::exit(2);
        }
        Some(Command::Dev(flags)) => match dev::prepare(*flags) {
            Ok((flags, pki)) => (flags, Some(pki)),
            Err(e) => {
                eprintln!("crd-apiserver: {e}");
                std::process::exit(1);
            }
        },
        None => (cli.serve, None),
    };
    init_logging(flags.log_format);
    let result = run::run(flags, |addr| {
        // The kubeconfig exists before the address is announced: scripts and tests run
        // kubectl as soon as they read that line.
        let written = dev_pki
            .as_ref()
            .map(|pki| (pki, pki.write_kubeconfig(addr)));
        // The first stdout line names the address, so scripts and tests can use port 0.
        println!("crd-apiserver listening on https://{addr}");
        match written {
            Some((pki, Ok(()))) => println!(
                "dev mode: try\n  kubectl --kubeconfig {} get crontabs",
                pki.kubeconfig.display()
            ),
            Some((_, Err(e))) => eprintln!("crd-apiserver: writing the dev kubeconfig: {e}"),
            None => {}
        }
    })
    .await;
    if let Err(e) = result {
        eprintln!("crd-apiserver: {e}");
        std::process::exit(e.exit_code());
    }
}
