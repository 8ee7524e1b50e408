//! The platform API (spec §6) as both sides of it see it: the paths of its endpoints and
//! the bodies they exchange. The client ([`crate::client`]) sends these requests and reads
//! these answers; `bench serve` routes these paths, reads these requests and writes these
//! answers.

pub(crate) mod bounds;
pub(crate) mod paths;
pub(crate) mod types;
