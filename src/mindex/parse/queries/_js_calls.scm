; Calls and imports shared by javascript.scm and typescript.scm.
(call_expression function: (identifier) @call.name)
(call_expression function: (member_expression object: (_) @call.receiver property: [(property_identifier) (private_property_identifier)] @call.name))
(new_expression constructor: (identifier) @call.name)
(new_expression constructor: (member_expression object: (_) @call.receiver property: [(property_identifier) (private_property_identifier)] @call.name))
(import_statement (import_clause (identifier) @import.alias) source: (string (string_fragment) @import.module))
(import_statement (import_clause (namespace_import (identifier) @import.alias)) source: (string (string_fragment) @import.module))
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name !alias)))
  source: (string (string_fragment) @import.module))
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @import.name alias: (identifier) @import.alias)))
  source: (string (string_fragment) @import.module))
(variable_declarator name: (identifier) @import.alias
  value: (call_expression function: (identifier) @_require arguments: (arguments (string (string_fragment) @import.module)))
  (#eq? @_require "require"))
; A module that passes on another's names (a barrel `index.ts`): `export { f, g as h } from
; './m'`, `export * from './m'`, `export * as m from './m'`, read as the imports they are.
(export_statement (export_clause (export_specifier name: (identifier) @import.name !alias))
  source: (string (string_fragment) @import.module))
(export_statement (export_clause (export_specifier name: (identifier) @import.name alias: (identifier) @import.alias))
  source: (string (string_fragment) @import.module))
(export_statement "*" @import.name . source: (string (string_fragment) @import.module))
(export_statement (namespace_export (identifier) @import.alias) source: (string (string_fragment) @import.module))
; `var f = require('./m').f`, `const { f, g: h } = require('./m')`
(variable_declarator name: (identifier) @import.alias
  value: (member_expression object: (call_expression function: (identifier) @_require
    arguments: (arguments (string (string_fragment) @import.module))) property: (property_identifier) @import.name)
  (#eq? @_require "require"))
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression function: (identifier) @_require arguments: (arguments (string (string_fragment) @import.module)))
  (#eq? @_require "require"))
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @import.name value: (identifier) @import.alias))
  value: (call_expression function: (identifier) @_require arguments: (arguments (string (string_fragment) @import.module)))
  (#eq? @_require "require"))
; What a name holds, for calls on it (see python.scm): a class made (`t = new Subscriber()`) or
; a function's result (`u = await this.fetch()`).
(variable_declarator name: (identifier) @type.var value: (new_expression constructor: [(identifier) (member_expression)] @type.class))
(variable_declarator name: (identifier) @type.var
  value: [(call_expression function: [(identifier) (member_expression)] @type.new)
          (await_expression (call_expression function: [(identifier) (member_expression)] @type.new))])
; An attribute of `this` (@type.attr) made, given a name, or given a function's result.
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @type.attr)
  right: (new_expression constructor: [(identifier) (member_expression)] @type.class))
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @type.attr)
  right: (identifier) @type.same)
(assignment_expression left: (member_expression object: (this) property: [(property_identifier) (private_property_identifier)] @type.attr)
  right: [(call_expression function: [(identifier) (member_expression)] @type.new)
          (await_expression (call_expression function: [(identifier) (member_expression)] @type.new))])
