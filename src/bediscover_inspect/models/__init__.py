"""Model providers shipped with the suite: ``gguf/`` runs a local GGUF in-process with llama-cpp-python."""
