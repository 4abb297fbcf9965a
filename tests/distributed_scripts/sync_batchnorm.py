"""SyncBatchNorm (run under mpiexec): each rank normalises its share of a batch (unequal
shares, including an empty one with 3 ranks) with statistics of the whole batch, so that the
outputs, the input gradients, the summed parameter gradients and the running statistics
equal BatchNorm's on the whole batch in one process."""

from datetime import timedelta

import tensorcore as tc
import tensorcore.distributed as dist
from tensorcore import nn

dist.init_process_group("mpi", timeout=timedelta(seconds=30))
r, n = dist.get_rank(), dist.get_world_size()


def close(a, b, atol=1e-10):
    return a.shape == b.shape and (a.numel() == 0 or (a - b).abs().max().item() <= atol)


tc.manual_seed(0)
sizes = [3, 5, 0, 4][:n] if n > 2 else [3, 5][:n]
X = tc.randn(sum(sizes), 4, 3, 2, dtype=tc.float64) * 0.5 + 0.3
G = tc.randn(sum(sizes), 4, 3, 2, dtype=tc.float64)
start = sum(sizes[:r])
mine = slice(start, start + sizes[r])

for momentum in (0.1, None):
    # Reference: one process, the whole batch (every rank computes it locally).
    ref = nn.Sequential(nn.Tanh(), nn.BatchNorm2d(4, momentum=momentum, dtype=tc.float64))
    with tc.no_grad():
        ref[1].weight.copy_(tc.linspace(0.5, 2.0, 4, dtype=tc.float64))
        ref[1].bias.copy_(tc.linspace(-1.0, 1.0, 4, dtype=tc.float64))
    net = nn.SyncBatchNorm.convert_sync_batchnorm(
        nn.Sequential(nn.Tanh(), nn.BatchNorm2d(4, momentum=momentum, dtype=tc.float64))
    )
    net.load_state_dict(ref.state_dict())
    assert type(net[1]) is nn.SyncBatchNorm
    for _step in range(2):
        xr = X.clone().requires_grad_()
        yr = ref(xr)
        (yr * G).sum().backward()
        x = X[mine].clone().requires_grad_()
        y = net(x)
        (y * G[mine]).sum().backward()
        assert close(y, yr[mine]), (y - yr[mine]).abs().max()
        assert close(x.grad, xr.grad[mine]), "input gradient"
        for (name, p), q in zip(net.named_parameters(), ref.parameters(), strict=True):
            g = p.grad.clone()
            dist.all_reduce(g)
            assert close(g, q.grad), (name, (g - q.grad).abs().max())
            p.grad = q.grad = None
    for name in ("running_mean", "running_var", "num_batches_tracked"):
        assert close(getattr(net[1], name).double(), getattr(ref[1], name).double()), name
    # eval mode: the running statistics, no communication
    net.eval()
    ref.eval()
    assert close(net(X[mine]), ref(X)[mine])

# A group of one rank behaves as BatchNorm
solo = dist.new_group([0])
if r == 0:
    bn = nn.SyncBatchNorm(4, process_group=solo, dtype=tc.float64)
    plain = nn.BatchNorm2d(4, dtype=tc.float64)
    assert close(bn(X), plain(X))
print(f"rank {r} OK", flush=True)
dist.destroy_process_group()
