//! End-to-end tests: each builds real guest components from source, runs the real `bench`
//! binary and reads what it printed and wrote. One module per user-visible area; the shared
//! helpers are in `support`.

mod support;

mod bad_input;
mod budgets;
mod build_progress;
mod cache_integrity;
mod cli;
mod color;
mod compare;
mod contained_builds;
mod dashboard;
mod distributed;
mod distributed_access;
mod distributed_faults;
mod distributed_trust;
mod failure_gates;
mod guest_cpu;
mod guest_errors;
mod guest_http;
mod hardening;
mod js_aot;
mod js_fetch;
mod limits;
mod load;
mod natives;
mod node_compat;
mod npm_sdks;
mod one_file;
mod outbound_http;
mod platform;
mod platform_delivery;
mod platform_faults;
mod platform_serve;
mod platform_sharing;
mod platform_stalls;
mod polyglot;
mod progress;
mod python_bodies;
mod python_libraries;
mod report;
mod results_input;
mod run;
mod sandbox;
mod scaffold;
mod scale;
mod scoring;
mod shards;
mod stop;
mod summary_parity;
mod timing;
mod websocket;
