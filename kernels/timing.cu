// timing.cu — placeholder
