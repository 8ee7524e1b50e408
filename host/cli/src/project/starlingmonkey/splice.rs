//! Splices the handle janitor into the engine's core module, by re-encoding it
//! (wasm-encoder's `Reencode`):
//!
//! - the janitor's imports from `engine` are the engine's own `memory`, its exported
//!   functions, and `headers_finalize` (the finalizer of the `Headers` class, found through
//!   the class in the engine's data: the JSClass named "Headers", its class ops' `finalize`);
//!   its other imports are the engine's imports of the same name, or new imports;
//! - each janitor export named `module#name` takes the place of the engine's import of that
//!   name in all the engine's code (the janitor itself still calls the import), and the one
//!   named `headers_finalize` takes the finalizer's place in the function table;
//! - the janitor's types, globals and functions follow the engine's.

use anyhow::{anyhow, bail, Context as _, Result};
use std::collections::HashMap;
use wasm_encoder::reencode::{self, Reencode};
use wasmparser::{Parser, Payload, TypeRef};

/// The janitor's import module that stands for the engine itself.
const ENGINE: &str = "engine";
/// The janitor's import and export that stand for the `Headers` finalizer.
const HEADERS_FINALIZE: &str = "headers_finalize";

/// The engine module with the janitor (WebAssembly text) spliced in.
pub(super) fn with_janitor(engine: &[u8], janitor: &str) -> Result<Vec<u8>> {
    let engine_layout = Layout::of(engine)?;
    let headers_finalize = engine_layout.headers_finalizer()?;
    let janitor = wat::parse_str(janitor).context("the janitor does not assemble")?;
    let janitor_layout = Layout::of(&janitor)?;

    let imports = engine_layout.imports.len() as u32;
    let mut added_imports = Vec::new();
    let mut janitor_imports = Vec::new();
    for import in &janitor_layout.imports {
        janitor_imports.push(if import.module == ENGINE {
            let function = match import.name.as_str() {
                HEADERS_FINALIZE => headers_finalize,
                name => engine_layout.exported_function(name)?,
            };
            Target::EngineFunction(function)
        } else if let Some(index) = engine_layout.import_index(&import.module, &import.name) {
            Target::Import(index)
        } else {
            added_imports.push(import.clone());
            Target::Import(imports + added_imports.len() as u32 - 1)
        });
    }
    let added = added_imports.len() as u32;
    let janitor_base = imports + added + engine_layout.functions.len() as u32;
    let janitor_functions: Vec<u32> = janitor_imports
        .into_iter()
        .map(|target| match target {
            Target::Import(index) => index,
            Target::EngineFunction(index) => shift(index, imports, added),
        })
        .chain((0..janitor_layout.functions.len() as u32).map(|i| janitor_base + i))
        .collect();

    let mut redirected = HashMap::new();
    let mut finalize_hook = None;
    for (name, function) in &janitor_layout.exported_functions {
        let replacement = janitor_functions[*function as usize];
        if name == HEADERS_FINALIZE {
            finalize_hook = Some(replacement);
            continue;
        }
        let (module, field) = name
            .split_once('#')
            .with_context(|| format!("the janitor's export `{name}` names no import"))?;
        let index = engine_layout
            .import_index(module, field)
            .with_context(|| format!("the engine does not import `{name}`"))?;
        redirected.insert(index, replacement);
    }

    let mut janitor_indices = JanitorIndices {
        functions: janitor_functions,
        types_base: engine_layout.types,
        globals_base: engine_layout.globals,
    };
    let mut splice = Splice {
        imports,
        added,
        redirected,
        headers_finalize,
        finalize_hook: finalize_hook.context("the janitor exports no headers_finalize")?,
        added_imports,
        janitor: &janitor,
        janitor_layout: &janitor_layout,
        janitor_indices: &mut janitor_indices,
    };
    let mut module = wasm_encoder::Module::new();
    splice
        .parse_core_module(&mut module, Parser::new(0), engine)
        .map_err(|error| anyhow!("cannot re-encode the engine: {error}"))?;
    Ok(module.finish())
}

/// Where an import of the janitor goes.
enum Target {
    /// An import of the spliced module.
    Import(u32),
    /// A function of the engine (its index in the engine).
    EngineFunction(u32),
}

/// A function index of the engine in the spliced module: `added` imports come after the
/// engine's `imports`.
fn shift(index: u32, imports: u32, added: u32) -> u32 {
    if index < imports {
        index
    } else {
        index + added
    }
}

/// A function import.
#[derive(Debug, Clone)]
struct Import {
    module: String,
    name: String,
    ty: u32,
}

/// What the splice needs to know of a module.
#[derive(Default)]
struct Layout {
    imports: Vec<Import>,
    types: u32,
    globals: u32,
    /// Types of the defined functions.
    functions: Vec<u32>,
    exported_functions: Vec<(String, u32)>,
    /// Active element segments: table offset, function indices.
    elements: Vec<(u32, Vec<u32>)>,
    /// Active data segments: memory offset, bytes.
    data: Vec<(u32, Vec<u8>)>,
}

impl Layout {
    fn of(module: &[u8]) -> Result<Self> {
        let mut layout = Layout::default();
        for payload in Parser::new(0).parse_all(module) {
            match payload? {
                Payload::TypeSection(section) => layout.types = section.count(),
                Payload::ImportSection(section) => {
                    for import in section.into_imports() {
                        let import = import?;
                        match import.ty {
                            TypeRef::Func(ty) => layout.imports.push(Import {
                                module: import.module.to_owned(),
                                name: import.name.to_owned(),
                                ty,
                            }),
                            TypeRef::Memory(_) if import.module == ENGINE => {}
                            _ => {
                                bail!("{}#{} is not a function import", import.module, import.name)
                            }
                        }
                    }
                }
                Payload::FunctionSection(section) => {
                    layout.functions = section.into_iter().collect::<Result<_, _>>()?;
                }
                Payload::GlobalSection(section) => layout.globals = section.count(),
                Payload::ExportSection(section) => {
                    for export in section {
                        let export = export?;
                        if export.kind == wasmparser::ExternalKind::Func {
                            layout
                                .exported_functions
                                .push((export.name.to_owned(), export.index));
                        }
                    }
                }
                Payload::ElementSection(section) => {
                    for element in section {
                        let element = element?;
                        let (
                            wasmparser::ElementKind::Active { offset_expr, .. },
                            wasmparser::ElementItems::Functions(functions),
                        ) = (element.kind, element.items)
                        else {
                            continue;
                        };
                        layout.elements.push((
                            constant(&offset_expr)?,
                            functions.into_iter().collect::<Result<_, _>>()?,
                        ));
                    }
                }
                Payload::DataSection(section) => {
                    for segment in section {
                        let segment = segment?;
                        if let wasmparser::DataKind::Active { offset_expr, .. } = segment.kind {
                            layout
                                .data
                                .push((constant(&offset_expr)?, segment.data.to_vec()));
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(layout)
    }

    fn import_index(&self, module: &str, name: &str) -> Option<u32> {
        self.imports
            .iter()
            .position(|import| import.module == module && import.name == name)
            .map(|index| index as u32)
    }

    fn exported_function(&self, name: &str) -> Result<u32> {
        self.exported_functions
            .iter()
            .find(|(export, _)| export == name)
            .map(|(_, index)| *index)
            .with_context(|| format!("the engine exports no function `{name}`"))
    }

    /// The function the `Headers` class finalizes its objects with: the JSClass (`{ name,
    /// flags, cOps, … }`) whose name is "Headers", the seventh entry of its class ops (a
    /// table index), that table entry's function.
    fn headers_finalizer(&self) -> Result<u32> {
        let memory = Image::new(&self.data);
        let name = memory
            .find(b"\0Headers\0")
            .map(|at| at + 1)
            .context("the engine has no `Headers` class name")?;
        let class = memory
            .find_word(name)
            .context("the engine has no `Headers` class")?;
        let ops = memory
            .word(class + 8)
            .context("the `Headers` class has no ops")?;
        let table_index = memory
            .word(ops + 6 * 4)
            .filter(|index| *index != 0)
            .context("the `Headers` class has no finalizer")?;
        self.elements
            .iter()
            .find_map(|(offset, functions)| {
                let position = table_index.checked_sub(*offset)?;
                functions.get(position as usize).copied()
            })
            .context("the `Headers` finalizer is not in the function table")
    }
}

/// A segment offset (`i32.const`).
fn constant(expression: &wasmparser::ConstExpr<'_>) -> Result<u32> {
    match expression.get_operators_reader().read()? {
        wasmparser::Operator::I32Const { value } => Ok(value as u32),
        other => bail!("a segment offset is {other:?}, not a constant"),
    }
}

/// A module's initial linear memory: its active data segments laid out.
struct Image {
    base: u32,
    bytes: Vec<u8>,
}

impl Image {
    fn new(segments: &[(u32, Vec<u8>)]) -> Self {
        let base = segments
            .iter()
            .map(|(offset, _)| *offset)
            .min()
            .unwrap_or(0);
        let end = segments
            .iter()
            .map(|(offset, data)| *offset as usize + data.len())
            .max()
            .unwrap_or(0);
        let mut bytes = vec![0; end.saturating_sub(base as usize)];
        for (offset, data) in segments {
            let start = (offset - base) as usize;
            bytes[start..start + data.len()].copy_from_slice(data);
        }
        Image { base, bytes }
    }

    /// The address of the first occurrence of `needle`.
    fn find(&self, needle: &[u8]) -> Option<u32> {
        let at = self.bytes.windows(needle.len()).position(|w| w == needle)?;
        Some(self.base + at as u32)
    }

    /// The first word-aligned address holding `value`.
    fn find_word(&self, value: u32) -> Option<u32> {
        let first = self.base.next_multiple_of(4);
        (first..self.base + self.bytes.len() as u32)
            .step_by(4)
            .find(|address| self.word(*address) == Some(value))
    }

    fn word(&self, address: u32) -> Option<u32> {
        let start = address.checked_sub(self.base)? as usize;
        let bytes = self.bytes.get(start..start.checked_add(4)?)?;
        Some(u32::from_le_bytes(bytes.try_into().ok()?))
    }
}

/// Moves the janitor's indices into the spliced module's index spaces.
struct JanitorIndices {
    functions: Vec<u32>,
    types_base: u32,
    globals_base: u32,
}

impl Reencode for JanitorIndices {
    type Error = std::convert::Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.functions[func as usize])
    }

    fn type_index(&mut self, ty: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.types_base + ty)
    }

    fn global_index(&mut self, global: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(self.globals_base + global)
    }
}

/// Re-encodes the engine with the janitor appended to each section.
struct Splice<'a> {
    imports: u32,
    added: u32,
    /// Engine imports whose calls go to a janitor function instead.
    redirected: HashMap<u32, u32>,
    headers_finalize: u32,
    finalize_hook: u32,
    added_imports: Vec<Import>,
    janitor: &'a [u8],
    janitor_layout: &'a Layout,
    janitor_indices: &'a mut JanitorIndices,
}

impl<'a> Splice<'a> {
    /// The janitor's sections.
    fn janitor_payloads(&self) -> impl Iterator<Item = Payload<'a>> + use<'a> {
        Parser::new(0)
            .parse_all(self.janitor)
            .filter_map(Result::ok)
    }
}

impl Reencode for Splice<'_> {
    type Error = std::convert::Infallible;

    fn function_index(&mut self, func: u32) -> Result<u32, reencode::Error<Self::Error>> {
        Ok(match self.redirected.get(&func) {
            Some(replacement) => *replacement,
            None => shift(func, self.imports, self.added),
        })
    }

    fn parse_type_section(
        &mut self,
        types: &mut wasm_encoder::TypeSection,
        section: wasmparser::TypeSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_type_section(self, types, section)?;
        for payload in self.janitor_payloads() {
            if let Payload::TypeSection(section) = payload {
                reencode::utils::parse_type_section(&mut *self.janitor_indices, types, section)?;
            }
        }
        Ok(())
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_import_section(self, imports, section)?;
        for import in &self.added_imports {
            let ty = self.janitor_indices.type_index(import.ty)?;
            imports.import(
                &import.module,
                &import.name,
                wasm_encoder::EntityType::Function(ty),
            );
        }
        Ok(())
    }

    fn parse_function_section(
        &mut self,
        functions: &mut wasm_encoder::FunctionSection,
        section: wasmparser::FunctionSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_function_section(self, functions, section)?;
        for ty in &self.janitor_layout.functions {
            functions.function(self.janitor_indices.type_index(*ty)?);
        }
        Ok(())
    }

    fn parse_global_section(
        &mut self,
        globals: &mut wasm_encoder::GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_global_section(self, globals, section)?;
        for payload in self.janitor_payloads() {
            if let Payload::GlobalSection(section) = payload {
                reencode::utils::parse_global_section(
                    &mut *self.janitor_indices,
                    globals,
                    section,
                )?;
            }
        }
        Ok(())
    }

    fn element_items<'b>(
        &mut self,
        items: wasmparser::ElementItems<'b>,
    ) -> Result<wasm_encoder::Elements<'b>, reencode::Error<Self::Error>> {
        let wasmparser::ElementItems::Functions(functions) = items else {
            return reencode::utils::element_items(self, items);
        };
        let mut mapped = Vec::new();
        for function in functions {
            let function = function?;
            mapped.push(if function == self.headers_finalize {
                self.finalize_hook
            } else {
                self.function_index(function)?
            });
        }
        Ok(wasm_encoder::Elements::Functions(mapped.into()))
    }

    fn parse_code_section(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        section: wasmparser::CodeSectionReader<'_>,
    ) -> Result<(), reencode::Error<Self::Error>> {
        reencode::utils::parse_code_section(self, code, section)?;
        for payload in self.janitor_payloads() {
            if let Payload::CodeSectionEntry(body) = payload {
                reencode::utils::parse_function_body(&mut *self.janitor_indices, code, body)?;
            }
        }
        Ok(())
    }
}
