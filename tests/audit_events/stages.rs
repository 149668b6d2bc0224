//! Stages and request metadata: a watch's ResponseStarted and ResponseComplete (ended by
//! its timeout and by the client going away), the policy's and a rule's `omitStages`,
//! `omitManagedFields`, `Audit-ID` honoured and returned (a new UUID otherwise, on
//! every answer), and the source IPs kube trusts (`X-Forwarded-For`, `X-Real-Ip`, the peer).

use futures::StreamExt;
use serde_json::{Value, json};

use crate::common::Server;
use crate::{
    AGENT, CRONTABS, admin, allowed, audit_flags, check_common, crontab, dev_admin, events_of,
    logged, new_id, policy_at,
};

fn start(policy: &str) -> (Server, std::path::PathBuf, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let (flags, log) = audit_flags(dir.path(), policy);
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    (Server::start_with(&flags), log, dir)
}

fn collection_ref() -> Value {
    json!({"resource": "crontabs", "namespace": "default",
        "apiGroup": "stable.example.com", "apiVersion": "v1"})
}

#[tokio::test]
async fn audit_watch_response_started_then_complete_at_its_end() {
    let (server, log, _dir) = start(&policy_at("Metadata"));
    let c = admin(&server);
    // Ended by its timeout.
    let id = new_id("watch-timeout");
    let uri = format!("{CRONTABS}?watch=true&timeoutSeconds=1");
    let resp = c
        .get(server.url(&uri))
        .header("Audit-ID", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["audit-id"], id.as_str());
    let started = events_of(&log, &id, 2).await;
    assert_eq!(started[1]["stage"], "ResponseStarted");
    let _ = resp.bytes().await.unwrap();
    let events = events_of(&log, &id, 3).await;
    let stages: Vec<&str> = events
        .iter()
        .map(|e| e["stage"].as_str().unwrap())
        .collect();
    assert_eq!(
        stages,
        ["RequestReceived", "ResponseStarted", "ResponseComplete"]
    );
    check_common(&events, "Metadata", &id, &uri, "watch", &dev_admin());
    for e in &events[1..] {
        assert_eq!(
            e["responseStatus"],
            json!({"metadata": {}, "code": 200}),
            "{e}"
        );
        assert_eq!(e["annotations"], allowed(), "{e}");
        assert_eq!(e["objectRef"], collection_ref(), "{e}");
    }
    assert!(events[0].get("responseStatus").is_none());
    assert!(events[1]["stageTimestamp"].as_str() <= events[2]["stageTimestamp"].as_str());

    // Ended by the client: ResponseComplete only once it is gone.
    let id = new_id("watch-dropped");
    let resp = c
        .get(server.url(&format!("{CRONTABS}?watch=true")))
        .header("Audit-ID", &id)
        .send()
        .await
        .unwrap();
    let mut body = resp.bytes_stream();
    let created = c
        .post(server.url(CRONTABS))
        .json(&crontab("w1"))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let first = body.next().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).contains("\"ADDED\""));
    let open = events_of(&log, &id, 2).await;
    assert_eq!(
        open.len(),
        2,
        "nothing completes while the watch is open: {open:?}"
    );
    assert_eq!(open[1]["stage"], "ResponseStarted");
    drop(body);
    let events = events_of(&log, &id, 3).await;
    assert_eq!(events[2]["stage"], "ResponseComplete");
    assert_eq!(
        events[2]["responseStatus"],
        json!({"metadata": {}, "code": 200})
    );
}

#[tokio::test]
async fn audit_omit_stages_and_managed_fields_honoured() {
    let policy = "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nomitManagedFields: true\nrules:\n- level: Metadata\n  verbs: [get]\n  omitStages: [ResponseComplete]\n- level: RequestResponse\n";
    let (server, log, _dir) = start(policy);
    let c = admin(&server);
    let id = new_id("create");
    let resp = c
        .post(server.url(CRONTABS))
        .header("Audit-ID", &id)
        .json(&crontab("m1"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 201);
    let created: Value = resp.json().await.unwrap();
    assert!(created["metadata"]["managedFields"].is_array(), "{created}");
    let id2 = new_id("update");
    let resp = c
        .put(server.url(&format!("{CRONTABS}/m1")))
        .header("Audit-ID", &id2)
        .json(&created)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let updated: Value = resp.json().await.unwrap();
    let id3 = new_id("get");
    let resp = c
        .get(server.url(&format!("{CRONTABS}/m1")))
        .header("Audit-ID", &id3)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    // A marker after them: once its event is written, theirs are too.
    let marker = new_id("marker");
    c.get(server.url(CRONTABS))
        .header("Audit-ID", &marker)
        .send()
        .await
        .unwrap();
    events_of(&log, &marker, 1).await;

    let without_managed = |mut v: Value| {
        v["metadata"]
            .as_object_mut()
            .unwrap()
            .remove("managedFields");
        v
    };
    let events = events_of(&log, &id, 1).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["stage"], "ResponseComplete");
    assert_eq!(
        events[0]["responseObject"],
        without_managed(created.clone())
    );
    assert_eq!(events[0]["requestObject"], crontab("m1"));
    let events = events_of(&log, &id2, 1).await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["requestObject"], without_managed(created));
    assert_eq!(events[0]["responseObject"], without_managed(updated));
    assert!(
        logged(&log).iter().all(|e| e["auditID"] != id3.as_str()),
        "a get's stages are all omitted"
    );
}

#[tokio::test]
async fn audit_id_honoured_else_new_uuid_on_every_answer() {
    let (server, log, _dir) = start(&policy_at("Metadata"));
    let c = admin(&server);
    // No header, an empty one: a new UUID each time, the one the events carry.
    for header in [None, Some("")] {
        let mut req = c.get(server.url("/healthz"));
        if let Some(h) = header {
            req = req.header("Audit-ID", h);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let id = resp.headers()["audit-id"].to_str().unwrap().to_owned();
        assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
        let events = events_of(&log, &id, 2).await;
        check_common(&events, "Metadata", &id, "/healthz", "get", &dev_admin());
        assert!(events[1].get("objectRef").is_none(), "{:?}", events[1]);
        assert_eq!(
            events[1]["responseStatus"],
            json!({"metadata": {}, "code": 200})
        );
    }
    // Honoured on an unrouted path's 404 page too.
    let resp = c
        .get(server.url("/nothing/here"))
        .header("Audit-ID", "mine-1")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    assert_eq!(resp.headers()["audit-id"], "mine-1");
    let events = events_of(&log, "mine-1", 2).await;
    assert_eq!(
        events[1]["responseStatus"],
        json!({"metadata": {}, "code": 404})
    );
    // Without a policy the header is still sent.
    let plain = Server::start();
    let resp = plain
        .client()
        .get(plain.url("/version"))
        .header("Audit-ID", "x-1")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["audit-id"], "x-1");
    let resp = plain
        .client()
        .get(plain.url("/version"))
        .send()
        .await
        .unwrap();
    assert!(uuid::Uuid::parse_str(resp.headers()["audit-id"].to_str().unwrap()).is_ok());
}

#[tokio::test]
async fn audit_source_ips_forwarded_for_then_real_ip_then_peer() {
    let (server, log, _dir) = start(&policy_at("Metadata"));
    let c = admin(&server);
    #[rustfmt::skip]
    let cases: [(&str, &str, Value); 3] = [
        ("203.0.113.7, bogus, 198.51.100.2", "192.0.2.1",
         json!(["203.0.113.7", "198.51.100.2", "192.0.2.1", "127.0.0.1"])),
        ("203.0.113.7", "203.0.113.7", json!(["203.0.113.7", "127.0.0.1"])),
        ("127.0.0.1", "", json!(["127.0.0.1"])),
    ];
    for (forwarded, real, want) in cases {
        let id = new_id("ips");
        let mut req = c
            .get(server.url("/healthz"))
            .header("Audit-ID", &id)
            .header("X-Forwarded-For", forwarded);
        if !real.is_empty() {
            req = req.header("X-Real-Ip", real);
        }
        assert_eq!(req.send().await.unwrap().status(), 200);
        let events = events_of(&log, &id, 2).await;
        for e in &events {
            assert_eq!(e["sourceIPs"], want, "{forwarded} {real}");
            assert_eq!(e["userAgent"], AGENT);
        }
    }
}
