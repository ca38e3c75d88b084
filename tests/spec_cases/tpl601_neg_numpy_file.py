# codes: TPL601
import numpy as np

A = np.random.rand(100, 10)
B = np.random.rand(10, 100)
C = np.random.rand(100, 5)
out = A @ B @ C
out2 = np.matmul(np.matmul(A, B), C)
