// primitives.cu — placeholder
