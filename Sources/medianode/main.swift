print("medianode")
