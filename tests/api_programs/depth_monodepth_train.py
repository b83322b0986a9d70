"""A Monodepth2-sized depth and pose network trained for a few steps: reflection-padded 3x3 convs with ELU, nearest
upsampling with skip connections, sigmoid disparities at four scales converted by disp_to_depth, a PoseNet head
averaging to axis-angle and translation (scaled by 0.01), the masked photometric loss, Adam with a StepLR, module
reprs, state_dict keys and a BytesIO round trip."""

import io

import torch

nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)


class Conv3x3(nn.Module):
    def __init__(self, cin, cout, use_refl=True):
        super().__init__()
        self.pad = nn.ReflectionPad2d(1) if use_refl else nn.ZeroPad2d(1)
        self.conv = nn.Conv2d(int(cin), int(cout), 3)

    def forward(self, x):
        return self.conv(self.pad(x))


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = Conv3x3(cin, cout)
        self.nonlin = nn.ELU(inplace=True)

    def forward(self, x):
        return self.nonlin(self.conv(x))


class DepthNet(nn.Module):
    def __init__(self, ch=(4, 8, 16)):
        super().__init__()
        self.enc = nn.ModuleList(
            [
                nn.Sequential(nn.Conv2d(3 if i == 0 else ch[i - 1], c, 3, 2, 1), nn.BatchNorm2d(c), nn.ReLU(True))
                for i, c in enumerate(ch)
            ]
        )
        self.convs = nn.ModuleDict()
        for i in range(len(ch) - 1, -1, -1):
            cin = ch[-1] if i == len(ch) - 1 else ch[i + 1]
            self.convs[f"upconv_{i}_0"] = ConvBlock(cin, ch[i])
            self.convs[f"upconv_{i}_1"] = ConvBlock(ch[i] + (ch[i - 1] if i > 0 else 0), ch[i])
            self.convs[f"dispconv_{i}"] = Conv3x3(ch[i], 1)
        self.sigmoid = nn.Sigmoid()

    def forward(self, x):
        feats = []
        for layer in self.enc:
            x = layer(x)
            feats.append(x)
        outputs = {}
        x = feats[-1]
        for i in range(len(feats) - 1, -1, -1):
            x = self.convs[f"upconv_{i}_0"](x)
            x = [F.interpolate(x, scale_factor=2, mode="nearest")]
            if i > 0:
                x += [feats[i - 1]]
            x = torch.cat(x, 1)
            x = self.convs[f"upconv_{i}_1"](x)
            outputs[("disp", i)] = self.sigmoid(self.convs[f"dispconv_{i}"](x))
        return outputs


class PoseNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(6, 8, 3, 2, 1), nn.ReLU(), nn.Conv2d(8, 12, 1))

    def forward(self, a, b):
        out = self.net(torch.cat([a, b], 1)).mean(3).mean(2)
        out = 0.01 * out.view(-1, 2, 1, 6)
        return out[..., :3], out[..., 3:]


def disp_to_depth(disp, min_depth=0.1, max_depth=100.0):
    min_disp, max_disp = 1 / max_depth, 1 / min_depth
    scaled = min_disp + (max_disp - min_disp) * disp
    return scaled, 1 / scaled


depth_net, pose_net = DepthNet(), PoseNet()
print(depth_net.convs["upconv_0_1"])
print(pose_net)
print("params", sum(p.numel() for p in depth_net.parameters()), sum(p.numel() for p in pose_net.parameters()))
print("keys", list(depth_net.state_dict().keys())[:7], len(depth_net.state_dict()))
params = list(depth_net.parameters()) + list(pose_net.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, 2, 0.1)

tgt, src = torch.rand(2, 3, 16, 24), torch.rand(2, 3, 16, 24)
for step in range(4):
    outputs = depth_net(tgt)
    axisangle, translation = pose_net(tgt, src)
    loss = 0.0
    for scale in range(3):
        disp = outputs[("disp", scale)]
        disp_up = F.interpolate(disp, [16, 24], mode="bilinear", align_corners=False)
        _, depth = disp_to_depth(disp_up)
        photometric = (tgt - src).abs().mean(1, True) * depth / depth.mean()
        mean_disp = disp.mean(2, True).mean(3, True)
        norm = disp / (mean_disp + 1e-7)
        smooth = (norm[..., :-1] - norm[..., 1:]).abs().mean() + (norm[..., :-1, :] - norm[..., 1:, :]).abs().mean()
        loss = loss + photometric.mean() + 1e-3 * smooth / (2**scale)
    loss = loss / 3 + axisangle.abs().sum() + translation.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print("step", step, round(loss.item(), 4), sched.get_last_lr(), {k: tuple(v.shape) for k, v in outputs.items()})

depth_net.eval()
with torch.no_grad():
    d = depth_net(tgt)[("disp", 0)]
    scaled, depth = disp_to_depth(d)
print("eval", tuple(d.shape), round(d.mean().item(), 4), round(depth.min().item(), 3), round(depth.max().item(), 3))
print(
    "bn running",
    [round(v, 4) for v in depth_net.enc[0][1].running_mean.tolist()[:4]],
    depth_net.enc[0][1].num_batches_tracked.item(),
)
buf = io.BytesIO()
torch.save({"depth": depth_net.state_dict(), "opt": opt.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf, weights_only=True)
clone = DepthNet()
print(clone.load_state_dict(ck["depth"]))
clone.eval()
with torch.no_grad():
    print("reload same", torch.equal(clone(tgt)[("disp", 0)], d))
print("opt state", sorted(ck["opt"]["state"][0].keys()), ck["opt"]["param_groups"][0]["lr"])
bad = dict(ck["depth"])
bad.pop("convs.dispconv_0.conv.bias")
bad["extra.weight"] = torch.zeros(1)
print(clone.load_state_dict(bad, strict=False))
try:
    clone.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(nn.ZeroPad2d((1, 0, 2, 0)), nn.ReplicationPad2d(2), nn.ELU(alpha=0.5, inplace=True), nn.ReflectionPad1d((1, 2)))
