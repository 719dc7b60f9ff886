; References in Rust. `use` trees are taken apart in refs.py.
(call_expression function: (identifier) @call.name)
(call_expression function: (scoped_identifier path: (_) @call.receiver name: (identifier) @call.name))
(call_expression function: (field_expression value: (_) @call.receiver field: (field_identifier) @call.name))
(use_declaration argument: (_) @import.tree)
(impl_item trait: (type_identifier) @implements.name)
(impl_item trait: (scoped_type_identifier name: (type_identifier) @implements.name))
(impl_item trait: (generic_type type: (type_identifier) @implements.name))  ; `impl From<u8> for X`
(impl_item trait: (generic_type type: (scoped_type_identifier name: (type_identifier) @implements.name)))
; What a function says it returns (`-> Self`, `-> &mut Builder`: `Foo::new().run()` on it).
(function_item return_type: (_) @returns.name)
