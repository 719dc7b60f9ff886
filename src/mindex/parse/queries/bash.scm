; References in shell scripts. A command is a call of its name (a function the script or a
; script it sources defines; `echo` and `grep` reach nothing in the index). `source f.sh` and
; `. f.sh` bring every function f.sh defines, as an import of all its names.
(command name: (command_name (word) @call.name) (#not-match? @call.name "^(source|\\.)$"))
(command name: (command_name (word) @_source) . argument: [(word) (string) (raw_string) (concatenation)] @import.module
  (#match? @_source "^(source|\\.)$"))
