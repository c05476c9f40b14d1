// softmax.cu — placeholder
