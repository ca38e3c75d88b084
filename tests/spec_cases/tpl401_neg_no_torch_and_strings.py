# codes: TPL401
"""Never set cudnn.benchmark = True with cudnn.deterministic = True."""


class cudnn:
    benchmark = False
    deterministic = False


cudnn.deterministic = True
cudnn.benchmark = True
