"""JSON Schema loading (schemas/) and readable validation errors."""
