//! The wire encoding of answers: objects and lists in the negotiated representation
//! ([`reply`]), served JSON and Tables from stored bytes ([`served`], [`stored`]), and
//! `resourceVersion` spliced into stored JSON without a re-encode ([`splice`]).

pub mod reply;
pub mod served;
pub mod splice;
pub mod stored;
