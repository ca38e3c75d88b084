# codes: TPL102
import torch


def rollout(agent, env, obs, steps):
    for _ in range(steps):
        action = agent.act(obs)
        obs, reward, done, _ = env.step(action.cpu().numpy())


def export(model):
    cpu_state = {}
    for name, tensor in model.state_dict().items():
        cpu_state[name] = tensor.cpu()
    return cpu_state


def save_samples(samples, writer):
    for index, image in enumerate(samples):
        writer.add_image(str(index), image.cpu().numpy())
