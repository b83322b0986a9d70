"""'Writing Custom Datasets, DataLoaders and Transforms' as typed in without skimage/torchvision: a CSV of face
landmarks read with the csv module, a FaceLandmarksDataset returning dict samples (torch.is_tensor(idx) idiom),
callable transform classes (Rescale, RandomCrop with a seeded numpy generator, ToTensor) and a hand-written
Compose, the DataLoader's default collation of dict samples, a custom collate_fn, a sampler and
batch_sampler, and the errors of mismatched sample shapes."""

# ruff: noqa: UP004, UP010, UP032  (the tutorial's own idioms, kept as written)

from __future__ import print_function, division
import csv
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, SequentialSampler, default_collate

rng = np.random.default_rng(17)
root_dir = tempfile.mkdtemp()
csv_file = os.path.join(root_dir, "face_landmarks.csv")
n_points = 4
with open(csv_file, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["image_name"] + [f"part_{i}_{c}" for i in range(n_points) for c in "xy"])
    for k in range(6):
        h, wdt = 10 + 2 * k, 12 + k
        img = (rng.random((h, wdt, 3)) * 255).astype(np.uint8)
        np.save(os.path.join(root_dir, f"face{k}.npy"), img)
        pts = np.stack([rng.uniform(0, wdt, n_points), rng.uniform(0, h, n_points)], 1).round(2)
        w.writerow([f"face{k}.npy"] + pts.flatten().tolist())


def read_csv(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


header, rows = read_csv(csv_file)
n = 3
img_name = rows[n][0]
landmarks = np.asarray(rows[n][1:], dtype=float).reshape(-1, 2)
print("Image name: {}".format(img_name))
print("Landmarks shape: {}".format(landmarks.shape))
print("First 4 Landmarks: {}".format(landmarks[:4].round(2).tolist()))


class FaceLandmarksDataset(Dataset):
    """Face Landmarks dataset."""

    def __init__(self, csv_file, root_dir, transform=None):
        _, self.landmarks_frame = read_csv(csv_file)
        self.root_dir = root_dir
        self.transform = transform

    def __len__(self):
        return len(self.landmarks_frame)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        row = self.landmarks_frame[idx]
        image = np.load(os.path.join(self.root_dir, row[0]))
        landmarks = np.array([row[1:]], dtype=float).astype("float").reshape(-1, 2)
        sample = {"image": image, "landmarks": landmarks}
        if self.transform:
            sample = self.transform(sample)
        return sample


face_dataset = FaceLandmarksDataset(csv_file=csv_file, root_dir=root_dir)
for i, sample in enumerate(face_dataset):
    print(i, sample["image"].shape, sample["landmarks"].shape)
    if i == 2:
        break
print("tensor index", face_dataset[torch.tensor(1)]["image"].shape)


class Rescale(object):
    """Rescale the image in a sample to a given size (nearest neighbour)."""

    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        h, w = image.shape[:2]
        if isinstance(self.output_size, int):
            if h > w:
                new_h, new_w = self.output_size * h / w, self.output_size
            else:
                new_h, new_w = self.output_size, self.output_size * w / h
        else:
            new_h, new_w = self.output_size
        new_h, new_w = int(new_h), int(new_w)
        rows = (np.arange(new_h) * h / new_h).astype(int)
        cols = (np.arange(new_w) * w / new_w).astype(int)
        img = image[rows][:, cols]
        landmarks = landmarks * [new_w / w, new_h / h]
        return {"image": img, "landmarks": landmarks}


class RandomCrop(object):
    """Crop randomly the image in a sample."""

    def __init__(self, output_size, seed=0):
        assert isinstance(output_size, (int, tuple))
        if isinstance(output_size, int):
            self.output_size = (output_size, output_size)
        else:
            assert len(output_size) == 2
            self.output_size = output_size
        self.rng = np.random.default_rng(seed)

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        h, w = image.shape[:2]
        new_h, new_w = self.output_size
        top = self.rng.integers(0, h - new_h + 1)
        left = self.rng.integers(0, w - new_w + 1)
        image = image[top: top + new_h, left: left + new_w]
        landmarks = landmarks - [left, top]
        return {"image": image, "landmarks": landmarks}


class ToTensor(object):
    """Convert ndarrays in sample to Tensors."""

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        image = image.transpose((2, 0, 1))
        return {"image": torch.from_numpy(image), "landmarks": torch.from_numpy(landmarks)}


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return self.__class__.__name__ + "(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


scale = Rescale(16)
crop = RandomCrop(8)
composed = Compose([Rescale(14), RandomCrop(12)])
sample = face_dataset[5]
for tsfrm in [scale, crop, composed]:
    transformed_sample = tsfrm(sample)
    print(type(tsfrm).__name__, transformed_sample["image"].shape, transformed_sample["landmarks"].round(2)[0].tolist())
print(composed)

transformed_dataset = FaceLandmarksDataset(csv_file=csv_file, root_dir=root_dir,
                                           transform=Compose([Rescale(12), RandomCrop(10, seed=1), ToTensor()]))
for i, sample in enumerate(transformed_dataset):
    print(i, sample["image"].size(), sample["landmarks"].size(), sample["image"].dtype, sample["landmarks"].dtype)
    if i == 1:
        break

dataloader = DataLoader(transformed_dataset, batch_size=4, shuffle=False, num_workers=0)
for i_batch, sample_batched in enumerate(dataloader):
    print(i_batch, sample_batched["image"].size(), sample_batched["landmarks"].size(), type(sample_batched).__name__)
    images = sample_batched["image"].float() / 255
    lm = np.round(sample_batched["landmarks"][0, 0].numpy(), 2).tolist()
    print("  mean", round(images.mean().item(), 4), "lm", lm)
print(len(dataloader), dataloader.batch_size, type(dataloader.sampler).__name__, dataloader.drop_last)


def collate_with_names(batch):
    out = default_collate([{k: v for k, v in s.items()} for s in batch])
    out["n"] = torch.tensor([len(s["landmarks"]) for s in batch])
    return out


bs = BatchSampler(SequentialSampler(transformed_dataset), batch_size=4, drop_last=True)
print(list(bs), len(bs))
loader = DataLoader(transformed_dataset, batch_sampler=bs, collate_fn=collate_with_names)
for b in loader:
    print(sorted(b.keys()), b["n"].tolist(), b["image"].shape)

raw = FaceLandmarksDataset(csv_file=csv_file, root_dir=root_dir, transform=ToTensor())
try:
    next(iter(DataLoader(raw, batch_size=2)))
except RuntimeError as e:
    print("RuntimeError", e)
try:
    DataLoader(raw, batch_sampler=bs, batch_size=2)
except ValueError as e:
    print("ValueError", e)
try:
    DataLoader(raw, shuffle=True, sampler=SequentialSampler(raw))
except ValueError as e:
    print("ValueError", e)
print(default_collate([np.array([1, 2]), np.array([3, 4])]), default_collate([("a", 1.5), ("b", 2.5)]))
