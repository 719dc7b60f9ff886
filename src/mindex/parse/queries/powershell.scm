; References in PowerShell. A command is a call of its name (a function of this script, of a
; script it dot-sources or of a module it imports; a cmdlet such as `Get-Item` reaches nothing
; in the index); `$x.M()`, `$this.M()` and `[T]::M()` are calls on a receiver, `[T]::new()`
; makes a T. `. $PSScriptRoot\lib.ps1` and `Import-Module $PSScriptRoot\Kit.psm1` bring every
; function that file defines; `class A : B, I` extends B and implements I.
(command command_name: (command_name) @call.name
  (#not-match? @call.name "^(?i:import-module|else|elseif|try|catch|finally|begin|process|end|foreach-object|where-object|write-host|write-output|write-verbose|write-debug|write-warning|write-error|select-object|sort-object|new-object|out-null|param)$"))
(invokation_expression . (_) @call.receiver . "::" . (member_name (simple_name) @call.name) (#not-eq? @call.name "new"))
(invokation_expression . (_) @call.receiver . "." . (member_name (simple_name) @call.name))
(invokation_expression . (type_literal (type_spec) @call.name) . "::" . (member_name (simple_name) @_new) (#eq? @_new "new"))
(command (command_invokation_operator) @_dot . command_name: (command_name_expr) @import.module (#eq? @_dot "."))
(command command_name: (command_name) @_import
  command_elements: (command_elements . (command_argument_sep) . (_) @import.module)
  (#match? @_import "^(?i:import-module)$"))
(class_statement ":" . (simple_name) @extends.name)
(class_statement "," . (simple_name) @implements.name)
