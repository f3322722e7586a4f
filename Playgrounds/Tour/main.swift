import Curlfire
print("Curlfire tour — placeholder while the engine is built")
