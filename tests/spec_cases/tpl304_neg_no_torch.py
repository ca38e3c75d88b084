# codes: TPL304
import mytorch

with mytorch.cuda.amp.autocast():
    y = f(x)
