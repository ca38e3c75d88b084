# codes: TPL101
import torch as T

device = T.device("cuda" if T.cuda.is_available() else "cpu")


def sample_noise(batch_size, latent_dim=128):
    noise = T.randn(batch_size, latent_dim).to(device)  # expect: TPL101
    return noise
