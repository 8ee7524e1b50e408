//! wasi:http `fields` live in the host, outside the guest's linear memory: the functions that
//! add header bytes (`fields` constructor, `from-list`, `append`, `set`, `clone`) are wrapped
//! so their bytes count against the sandbox's memory ([`crate::sandbox::memory`]) before
//! wasmtime-wasi-http's own implementation runs. What the guest drops is found by recounting
//! the fields the sandbox's resource table holds ([`held`]) when an estimate no longer fits.

use crate::sandbox::SandboxState;
use http::{HeaderMap, HeaderName, HeaderValue};
use std::collections::HashSet;
use wasmtime::component::{Linker, Resource, ResourceTable};
use wasmtime::StoreContextMut;
use wasmtime_wasi_http::p2::bindings::http::types::{self, HeaderError, HostFields};
use wasmtime_wasi_http::p2::types::{
    HostIncomingResponse, HostOutgoingRequest, HostOutgoingResponse,
};
use wasmtime_wasi_http::{FieldMap, WasiHttpView};

/// The interface wasmtime-wasi-http 48 links the `fields` resource under.
const TYPES_INTERFACE: &str = "wasi:http/types@0.2.12";

/// Host bytes of one `fields` resource besides its entries.
const FIELDS_BYTES: usize = 256;
/// Host bytes of one entry besides its name and value.
const ENTRY_BYTES: usize = size_of::<HeaderName>() + size_of::<HeaderValue>();

/// Replaces the `fields` functions that add header bytes with ones that count them first.
pub(crate) fn account_in(linker: &mut Linker<SandboxState>) -> anyhow::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES_INTERFACE)?;
    types.func_wrap("[constructor]fields", |mut store: Store<'_>, (): ()| {
        let state = store.data_mut();
        add(state, FIELDS_BYTES)?;
        Ok((HostFields::new(&mut state.http())?,))
    })?;
    types.func_wrap(
        "[static]fields.from-list",
        |mut store: Store<'_>, (entries,): (Vec<(String, Vec<u8>)>,)| {
            let state = store.data_mut();
            let bytes = FIELDS_BYTES
                + entries
                    .iter()
                    .map(|(n, v)| entry(n, v.len()))
                    .sum::<usize>();
            add(state, bytes)?;
            let created = HostFields::from_list(&mut state.http(), entries);
            Ok((header_result(state, bytes, created)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.append",
        |mut store: Store<'_>, (fields, name, value): (Resource<FieldMap>, String, Vec<u8>)| {
            let state = store.data_mut();
            let bytes = entry(&name, value.len());
            add(state, bytes)?;
            let appended = HostFields::append(&mut state.http(), fields, name, value);
            Ok((header_result(state, bytes, appended)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.set",
        |mut store: Store<'_>,
         (fields, name, values): (Resource<FieldMap>, String, Vec<Vec<u8>>)| {
            let state = store.data_mut();
            let bytes = values.iter().map(|value| entry(&name, value.len())).sum();
            add(state, bytes)?;
            let set = HostFields::set(&mut state.http(), fields, name, values);
            Ok((header_result(state, bytes, set)?,))
        },
    )?;
    types.func_wrap(
        "[method]fields.clone",
        |mut store: Store<'_>, (fields,): (Resource<FieldMap>,)| {
            let state = store.data_mut();
            let bytes = FIELDS_BYTES + map_bytes(state.table.get(&fields)?);
            add(state, bytes)?;
            Ok((HostFields::clone(&mut state.http(), fields)?,))
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

type Store<'a> = StoreContextMut<'a, SandboxState>;

/// Host bytes of an entry of this name and value length.
fn entry(name: &str, value_len: usize) -> usize {
    name.len() + value_len + ENTRY_BYTES
}

/// Counts `bytes` of fields the guest adds; past the sandbox's memory the call traps with
/// `memory_limit`.
fn add(state: &mut SandboxState, bytes: usize) -> wasmtime::Result<()> {
    let table = &mut state.table;
    state
        .memory
        .add_fields(bytes, || held(table))
        .map_err(wasmtime::Error::new)
}

/// The guest's view of a header result; the `bytes` counted for a call that failed are
/// given back.
fn header_result<T>(
    state: &mut SandboxState,
    bytes: usize,
    result: Result<T, wasmtime_wasi_http::p2::HeaderError>,
) -> wasmtime::Result<Result<T, HeaderError>> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(error) => {
            state.memory.remove_fields(bytes);
            Ok(Err(types::Host::convert_header_error(
                &mut state.http(),
                error,
            )?))
        }
    }
}

/// The host bytes of the fields `table` holds: every distinct header map (free-standing,
/// or in a request or response the guest built or received) counted once.
pub(crate) fn held(table: &mut ResourceTable) -> usize {
    let mut seen = HashSet::new();
    let mut bytes = 0;
    for resource in table.iter_mut() {
        let map: Option<&HeaderMap> = if let Some(fields) = resource.downcast_ref::<FieldMap>() {
            Some(fields)
        } else if let Some(request) = resource.downcast_ref::<HostOutgoingRequest>() {
            Some(&request.headers)
        } else if let Some(response) = resource.downcast_ref::<HostOutgoingResponse>() {
            Some(&response.headers)
        } else {
            resource
                .downcast_ref::<HostIncomingResponse>()
                .map(|response| &*response.headers)
        };
        if let Some(map) = map.filter(|map| seen.insert(std::ptr::from_ref(*map))) {
            bytes += FIELDS_BYTES + map_bytes(map);
        }
    }
    bytes
}

/// Host bytes of a header map's entries.
fn map_bytes(map: &HeaderMap) -> usize {
    map.iter()
        .map(|(name, value)| entry(name.as_str(), value.len()))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_fields_count_each_shared_map_once() {
        let filled = || {
            let mut fields = FieldMap::new_mutable(1 << 20);
            fields
                .append_raw(
                    HeaderName::from_static("x-a"),
                    HeaderValue::from_static("12345"),
                )
                .unwrap();
            fields
        };
        let one = FIELDS_BYTES + entry("x-a", 5);
        let mut table = ResourceTable::new();
        let fields = filled();
        table.push(fields.clone()).unwrap();
        table.push(fields).unwrap();
        assert_eq!(held(&mut table), one, "an unchanged clone shares its map");
        table.push(filled()).unwrap();
        assert_eq!(held(&mut table), 2 * one);
    }
}
