// Placeholder so that a module with no sources yet still forms a library.
