"""PyTorch programs of the kinds researchers write (tests/api_programs/: a CNN with checkpoints and param groups,
LR schedules, autocast, a VAE with distributions, a GAN, seq2seq with packed sequences, a Transformer, a GNN,
custom autograd Functions, torch.func, hooks and parametrizations, linalg/fft/complex, tensor basics, data
pipelines, a layer zoo, training utilities, indexing, module mechanics, modern idioms; research code: DDPM,
a PINN, flows/GP, ViT, SimCLR/MAML, MoE/FNO, ODE, uncertainty, LLaMA+LoRA, QAT, NeRF, SSM; and PyTorch's tutorials:
the quickstart, DCGAN, char-RNN, the Transformer language model, EmbeddingBag text classification, DQN/REINFORCE/PPO,
transfer learning with distillation and torch.compile, spatial transformers with style transfer, torch.utils.data's
samplers and collates, and the beginners' common errors; HuggingFace-style NLP code: a BERT encoder with MLM and
strict=False checkpoints, GPT-2 generation (KV cache, sampling, beam search), T5 relative buckets with collation and
a warmup schedule, PreTrainedModel utilities, a Trainer-style loop (meta init, ALiBi, GQA), data collators, and
NLP reprs and errors; computer-vision code: tensor augmentation with detection utilities, a UNet segmenter, ResNet
training infrastructure, vision layers, a DETR/FPN training loop, super-resolution with SSIM and an R1 penalty,
Grad-CAM with adversarial attacks; torch as a scientific array library: statistics, integer and dtype semantics,
printing edge cases, special functions and distributions, linear algebra workflows, signal processing; domain
research code: CTC speech recognition, audio synthesis (Griffin-Lim, WaveNet), a 3-D U-Net with a video classifier,
point clouds (PointNet, FPS, Chamfer), stereo and optical flow, sparse mesh Laplacians, complex quantum circuits with
Sinkhorn transport, retrieval metrics and binning, Kalman filtering with mixtures, ML interatomic potentials, graph
algorithms, PDEs and cellular automata), each printing what it computes. Each runs unmodified
through `python -m ember.torch`, and its output must be PyTorch 2.13's, stored in tests/api_programs/expected/
(printed numbers compared to 2e-4, the programs round to four decimals; the rest exactly). The torch session checks
the stored outputs against PyTorch itself.

Training infrastructure too: checkpointing with accumulation, resumed optimizers and schedulers, metric-learning and
probabilistic losses, a TCN/LSTM forecaster, Transformer stacks with the eval fast path, torch.func ensembles with
gradient penalties, module surgery with hooks, multi-task tricks (SAM, PCGrad), hand-written attention variants.

Self-supervised, detection and recommender code: BYOL/MoCo, DINO multi-crop, MAE masking, box coding with NMS, RoI
pooling through grid_sample, DLRM and wide&deep, sparsemax/FT-Transformer, LARS with kNN evaluation; code that
extends the framework: torch.autograd.functional, the graph and Node API, diagnostics, checkpointing with custom
Functions, __torch_function__ subclasses and modes, nn.utils, module state hooks, parametrizations; generative models
and neural fields: VQ-VAE, flow matching with a DiT, SIREN and hypernetworks, StyleGAN and PixelCNN layers, EBM and
mixture density networks, capsules and CLIP, hash-grid fields, dVAE/MADE/EDM, EMA with graph debugging.

pytorch.org's tutorials and notes as learners type them (Learning PyTorch with Examples, What is torch.nn really?,
the 60-minute blitz, the autograd-mechanics, broadcasting, extending, numerical-accuracy and reproducibility notes,
saving and loading, recipes); every optimizer as researchers compare them (state dicts, errors and hooks, SWA and
clipping, warmup schedules, complex and reduced-precision parameters, wrappers); numpy/scipy code ported op by op
(a heat equation, spatial statistics, special functions, station records, cell lists, numpy keyword habits); and
torch.compile and TorchScript as users call them (compiled training steps, graph breaks, inference, recipes,
guards, AMP and checkpointing inside compiled code, scripted and traced modules); evaluation and continual-learning
code (metrics from confusion matrices to calibration and ranking statistics, streaming metric modules, EWC, replay,
distillation, SI); and older-style code still in the wild (Variable, `.data` updates, legacy tensor types and
constructors, deprecated loss and scalar-first arguments, DataParallel on the CPU, a 2019 word language model); and
the accepted answers of the most-viewed StackOverflow and forum questions (indexing and masks, model utilities,
numeric recipes, reprs, conversions, padding, training gotchas, grad_fn names, module bookkeeping, numpy interop).

Course and book code: Dive into Deep Learning (`d2l_*`, `d2l2_*`: preliminaries to RNNs, attention to recommender
systems, its Module/Trainer scaffolding inlined), CS231n/CS224n assignments and fast.ai tricks (`course_*`: layers by
hand with gradient checks, saliency, parsers and NMT, LR finders and mixup); library infrastructure rewritten inline
(`infra_*`: timm blocks and EMA, Lightning-style loops and callbacks, torchmetrics-style states, schedulers,
checkpoint resume with RNG states); and the `>>>` examples of PyTorch's own reference pages run on fixed inputs
(`docs_*`: torch.* and Tensor methods by theme; `nndocs_*`: torch.nn layers, losses, init and utils, torch.linalg,
torch.special and torch.fft).

More of pytorch.org's intermediate and advanced tutorials (`tut_*`: pruning, forward-mode AD, double backward,
parametrizations, torch.func recipes, custom ops, the profiler and benchmark recipes); systematic sweeps in the
manner of PyTorch's OpInfo tests (`sweep_*`: binary promotion over dtype pairs and operand kinds, unary and reduction
dtypes, shape ops on strided and empty inputs, in-place and out= casting, special values, indexing, matmul shapes,
gradients' dtypes, sorting); modern architectures from their reference code (`zoo_*`: ConvNeXt, Swin, MobileNetV3,
MLP-Mixer, Perceiver, Conformer, RWKV/RetNet, Mistral-style GQA, YOLO, GFNet, efficient attention, a bfloat16
decoder, CaiT, an LDM UNet, SAM's decoder, S4D/Hyena); Kaggle notebooks (`kaggle_*`: k-fold tabular models, mixup
and TTA, packed RNNs with focal loss, SWA, metric code, RLE segmentation, stacking); the mistakes users make and
PyTorch's exact words for them (`oops_*`: layer shapes, losses, autograd, tensor ops, indexing and devices,
modules, training loops, functional calls, memory and numpy); and data, serialization and runtime utilities
(`util_*`: DataLoader workers and failures, collate, samplers, save/load with weights_only, checkpointing, nn.utils,
assert_close, runtime configuration, sharded loading, pytree, worker seeding); reinforcement learning (`rl_*`: DQN
with target networks, PPO/GAE, SAC/TD3, distributional RL, IMPALA/A2C, replay buffers, A3C, TRPO/ES, a world
model); graph neural networks without PyG (`graph_*`: sparse GCN, GAT's segment softmax, GIN readouts, link
prediction, spectral filters, pooling, neighbour sampling, k-hop products); torch.distributions in depth (`dist_*`:
30 families' moments, transforms and KL, reparameterized gradients, edge cases, custom distributions, flows, VI,
sampling shapes, validation); and classic sequence NLP (`seq_*`: BiLSTM-CRF, BPE with beam search, pointer
networks, adaptive softmax, CTC, TextCNN/QRNN, biaffine parsing, GloVe, NMT with BLEU, AWD-LSTM, HMMs).

Ecosystem pieces rewritten inline (`lib_*`: einops, kornia geometry/color/filters, torchvision transforms,
torchaudio functional, torchmetrics, timm and accelerate utilities, a Lightning-style loop, mixed precision); the
semantics questions of PyTorch's GitHub issues and forum (`gh_*`: in-place on views, duplicate indices, NaN
propagation, unique and promotion, memory formats, grad modes, indexing order, reprs of special values, backward
semantics, where/masked gradients, zero-size tensors, ties, broadcasting); classic papers' training code (`paper_*`:
batch norm, the Adam family, norm layers, WGAN-GP, SGNS, the Transformer's schedule, MAML, regularizers, style
transfer, seq2seq attention, classic optimizers, SN-GAN, contrastive losses, ResNet tricks, LSTM variants, GAN
tricks, memory networks, NALU/Deep Sets/FiLM); scientific computing (`sci_*`: HMC, GP regression, Ising, molecular
clusters, ODE adjoints, finite differences and elements, spectral PDEs, root finding, least squares, quadrature,
complex waves, MLE, LP/Markov chains, porting mistakes, dynamics with torch.func); and classic architectures with
the code that inspects them (`cls_*`: LeNet/AlexNet, VGG summaries, ResNet fusion, DenseNet checkpointing,
GoogLeNet/Inception aux heads, SqueezeNet, FLOP counting, U-Nets, a char-RNN, model registries, feature
extraction, checkpoint surgery); and torch.fx as libraries use it (`fx_*`: torchvision-style feature
extraction, conv-bn fusion and graph surgery, quantization-prep observers).

Time-series forecasting and tabular deep learning (`ts_*`: N-BEATS, DeepAR likelihood heads, Autoformer/FEDformer
decomposition and auto-correlation, Informer's ProbSparse attention, TFT variable selection, WaveNet/TCN causal
convolutions, PatchTST/N-HiTS/LSTNet, TabNet, categorical and numerical embeddings, sliding windows, nan-aware and
masked statistics, resampling, MAPE/sMAPE/CRPS metrics, low-rank multivariate heads, training loops with vmap
ensembles, TorchScript metric functions, Holt-Winters with conformal intervals, an entity-embedding MLP).

Generative-model research code (`gen_*`: noise schedules and parameterization conversions, DDPM/DDIM/Karras/DPM-
Solver samplers, classifier-free guidance, EMA, score matching, consistency and rectified flow, RealNVP/Glow with
LU, neural splines, flows from torch.distributions, VAE/IWAE and VQ variants, GAN losses with R1, latent
interpolation and DiffAugment, autoregressive sampling and densities, a diffusion UNet, FID/IS/KID evaluation).

Modern LLM code (`llm_*`: RoPE variants and context-extension scaling, SDPA masks with GQA/sliding window/ALiBi,
FlexAttention block masks, KV caches, MoE routing, int8/int4 packing, LoRA merging, sequence packing, nanoGPT
training, AdamW groups with warmup-cosine, meta-device loading, DPO/PPO losses, speculative sampling, byte-level
BPE, RMSNorm/SwiGLU, simulated tensor parallelism, batched generation with beam search, KV-cache eviction).

Code that extends the framework as library authors write it (`fw_*`: custom ops through torch.library's custom_op
and Library/define/impl, autograd.Function's ctx API, meta-device init and shape inference, default dtypes and
devices, module hooks, torch.func combinations and functional training, saved-tensor and grad hooks, torch.overrides
and modes, parametrizations with functional_call, pytrees, Tensor subclasses, graph edges and lazy modules).

Seeded randomness (`rng_*`: every CPU sampler's stream printed exactly, and a seeded training script whose data,
initialisation, shuffling and dropout are PyTorch's numbers); and seeded research scripts whose printed numbers are
PyTorch's CPU stream (`seed_*`: default init of 19 layer types, nn.init, tensor draws in float32/float64 and on
strided layouts, every dropout variant, samplers and random_split, 40 distribution families, generators and RNG
states, LM sampling with top-k/top-p, augmentation, packed RNNs, MLM masking, VAEs, RL policies, Monte Carlo,
vmap ensembles, and the rarer consumers: pruning, fractional pooling, RReLU, scrambled Sobol).

Model code as the popular libraries write it, re-implemented inline (`hub_*`: timm's ViT, ConvNeXt, EfficientNet
and helpers; HuggingFace's BERT, GPT-2 generation, Llama, T5, modeling and Trainer utils; torchvision's ResNet,
MobileNet, detection pieces and v2 transforms; diffusers' schedulers, UNet, VAE and attention processors;
Lightning-style trainers with callbacks, manual optimization and SWA).

User mistakes printed as PyTorch words them, whole (`err_*`: shapes, dtypes, autograd, indexing, factories, state
dicts, modules and optimizers, data pipelines, layers, training loops, custom Functions, linalg, distributions,
Python/numpy protocols, nn.utils, in-place writes through views).

torch.utils.data pipelines (`data_*`: seeded sampler and loader orders printed exactly, DistributedSampler shares,
nested and edge-case collation, padding and packing collates, IterableDataset sharding and seeding across workers,
dataset combinators, loader options and errors, bucketing and custom typed samplers, text, file-backed,
sliding-window and augmentation pipelines, a seeded training loop).

Signal processing as scientists write it (`sig_*`: torch.fft norms and padding, STFT/ISTFT windows and corners,
torch.signal.windows, mel filterbanks and MFCCs, Griffin-Lim, FIR/IIR filters, resampling, correlation, Hilbert
and Welch spectra, framing and discrete calculus, complex tensors and their autograd, a 1-d CNN on tones).

Training-loop machinery (`opt_*`: every optimizer's options, param groups, foreach and state dicts, LBFGS with
strong Wolfe and SparseAdam, every LR scheduler per step, SWA/EMA, clipping with accumulation, BytesIO resume,
hooks, custom optimizers and schedulers, named-parameter state, sparse and mixed-dtype parameters, LLRD, GradScaler).

Computer-vision building blocks in plain torch (`vis_*`: box IoU/GIoU/CIoU with NMS and batched NMS, anchors with
a box coder, matcher and RoI pool/align by hand, grid_sample/affine_grid over every mode, interpolate's modes with
antialias and uint8, unfold/fold im2col, channels_last strides and gradient layouts, conv variants, pooling with
indices and unpooling, UNet/FPN training, focal/dice losses with confusion-matrix metrics, seeded augmentations
with mixup/cutmix, uint8 image arithmetic, optical-flow warping and keypoint decoding, YOLO decoding with
COCO-style mAP).

Functional autodiff as JAX-style PyTorch code writes it (`fn_*`: grad/grad_and_value with aux and argnums, nested
vmap dims and chunking, jacrev/jacfwd/hessian, functional_call with per-sample gradients and ensembles, vjp/jvp/
linearize, torch.autograd.functional, forward_ad through modules, custom Functions for torch.func, autograd.grad's
options with hooks and gradcheck, MAML, implicit differentiation, curvature tricks, functional training loops).

Dtype semantics as numerical code meets them (`dt_*`: promotion tables with scalars and 0-dim tensors, integer
division and remainder modes, bitwise ops and wraparound, float-to-int casts and rounding, 16-bit precision,
in-place and out= casting rules, inference with numpy interop, op result dtypes, index and label dtypes, complex).

Module infrastructure as library code uses it (`mod_*`: strict=False and assign=True loading with extra state,
state-dict and load hooks, parametrize with right_inverse and cached(), weight/spectral/orthogonal norms, meta
init with weights_only save/load and shared views, forward/backward and global hooks, containers, ties and
deepcopy, pruning).

Numerical linear algebra (`la_*`: solvers and lstsq drivers, decompositions with normalised signs, norms and
conditioning, matrix functions, complex128, gradients through factorizations, batched workflows, factor reuse, and
LinAlgError handling).

Sparse tensors (`sp_*`: COO construction and coalescing, CSR and CSC parts and reprs, sparse-dense products with
gradients to the values, sparse Embedding/EmbeddingBag with SparseAdam and SGD, a normalized-adjacency GCN, batched
graphs with cat and sparse_mask, slicing, recommender and scientific operators, and PyTorch's sparse errors).

Mixed and reduced precision on the CPU (`amp_*`: autocast op by op and over nn modules, its API and state, GradScaler
loops, custom_fwd/custom_bwd, float32 master weights with hand-written loss scaling, promotion around float16/
bfloat16, finfo/overflow/subnormals, model casting across precisions, and printing half tensors).

Printing as every user sees it (`repr_*`: print options with their save/restore helpers, sci-notation boundaries
per dtype, shapes from 0-dim to summarised 5-D, format specs and numpy printing, return types, module/optimizer/
scheduler reprs, grad_fn and Parameter suffixes, dtypes/devices/finfo, distributions and PackedSequence, a training
log).

Indexing and memory layout (`idx_*`: basic and advanced keys mixed, setitem with broadcast and cast values, the
index_*/scatter/gather families with duplicates, masks and nonzero, unique and searchsorted, views against copies
with their strides and storage, in-place writes through views, index errors, ragged batches, a dtype sweep, stride
tricks, and numpy idioms ported one for one).

Training-loop utilities (`loop_*`: hand-written and built-in parametrizations with transfer and LoRA merging,
hook-based legacy norms, iterative pruning with lottery tickets, SWA/EMA variants, composed LR schedules and
plateau-driven early stopping, accumulation with clipping, param groups with resume, optimizer and scheduler
subclasses and hooks, activation checkpointing's recomputation checks, kwargs module hooks, CPU AMP with GradScaler).

NumPy interop as data and science code uses it (`np_*`: numpy scalars as operands, sizes and fills, shared and
copied memory, ndarrays and ufuncs meeting tensors, numpy datasets and collation, pickle and deepcopy, torch.tensor
inference from numpy data, asarray/frombuffer and array protocols, an sklearn-style wrapper, numpy/torch RNGs).

Probabilistic modelling with torch.distributions (`pd_*`: seeded samplers, validation errors, transforms and
bijectors, the KL registry, a VAE ELBO, REINFORCE, Gumbel-softmax, GMM fits, Bayesian regression, structured
Gaussians, moments and cdf/icdf, GLM likelihoods, custom families and discrete details).

Higher-order autograd as research code uses it (`ho_*`: double backward through activations, layers and losses,
WGAN-GP/R1/path-length penalties, Hessian-vector products with Newton-CG, torch.autograd.functional's strategies
and errors, custom Functions' ctx API, tensor/node/saved-tensor hooks with graph walks, autograd's errors,
MAML/Meta-SGD, gradcheck suites, and divergence/curl/Laplacian operators of neural fields).

Detection and segmentation utilities in plain torch (`det_*`: box formats over dtypes, IoU-family losses with
gradients, greedy/batched/matrix/soft NMS, anchors with FCOS/ATSS/SimOTA assignment, BoxCoder clamps, segmentation
targets and cross-entropy with OHEM/Dice/Lovasz, mask ops with RLE, COCO/VOC mAP, panoptic quality, torchvision's
RoIAlign reference, a YOLOv5 loss, torchvision.ops with its TorchScript decorators, printed detections).

Audio and speech code without torchaudio (`au_*`: stft/istft options and round trips, hand-built log-mel and MFCC
front ends, CTCLoss with greedy decoding, WaveNet causal convolutions, torch.fft spectra, packed-RNN acoustic models,
resampling with SpecAugment, a HiFi-GAN vocoder, VAD features, speaker embeddings, streaming chunks, front-end
pitfalls).

Recommender-system and ranking code (`rec_*`: biased MF from a seeded DataLoader, factorization machines' O(kn)
trick, sparse embedding gradients with SparseAdam, EmbeddingBag multi-hot features, id hashing, popularity negative
sampling, two-tower in-batch softmax with logQ, BPR/hinge/WARP losses, hand-written HR/NDCG/MRR/AUC, bucketized
features, NeuMF, DLRM interactions, Wide&Deep with DCN-v2, SASRec/GRU4Rec, LightGCN, CTR calibration,
interaction-log aggregates, and their errors).

NLP pipelines in plain PyTorch (`tok_*`: hand-written tokenizers and vocabularies, Embedding and EmbeddingBag
options with sparse optimizers, skip-gram with negative sampling, hashed n-gram classifiers, packed GRU/LSTM
encoders with printed padding reprs, MultiheadAttention masks, label-smoothed losses with perplexity, BERT
masking, attention decoders, a char-CNN, Transformer beam search, custom stacks and the encoder fast path).

3-D geometry and graphics code (`geo_*`: quaternions and Euler angles, SO(3)/SE(3) exp/log with pose fitting, pinhole
cameras with triangulation, homographies by DLT with RANSAC, kNN/FPS/Chamfer/voxel point ops, meshes with sparse
Laplacians, Kabsch/Umeyama/ICP, volume rendering, soft rasterization, 3-D boxes, voxel CNNs, 3-D spatial
transformers, torch.func Jacobians for Gauss-Newton, and the corners and errors of cross/atan2/unique/cdist).

Classical machine learning in torch (`ml_*`: k-means++ with index_add_ updates, PCA by svd/pca_lowrank/eigh,
LBFGS logistic and softmax regression, ridge and kernel ridge over lstsq drivers, GP marginal likelihoods, GMM EM,
naive Bayes, k-NN votes, stumps with AdaBoost, hinge-loss SVMs, t-SNE/UMAP-like embeddings, preprocessing with
quantiles and histograms, cross-validated metrics, LDA/QDA with whitening).

Tensor algebra as numerical and ML code writes it (`ein_*`: einsum in every form with gradients, tensordot/kron/
index helpers, the addmm family with beta/alpha, cumulative ops with their gradients, broadcasting and layout with
strides, the diagonal family and cross, shape errors, attention, mechanics tensors, tensor networks, per-sample
gradients and curvature, kernel methods, numpy ports).

Tensor memory layout as library authors reason about it (`mem_*`: channels_last and channels_last_3d through conv,
norms, pooling, interpolate and cat, gradient and optimizer-state layouts, storage sharing and the UntypedStorage/
TypedStorage API, resize_/set_/as_strided_ with versions, view against reshape with the expanded-write errors,
as_strided windows and im2col, the *_like factories over odd layouts, numpy sharing, view-op stride arithmetic,
state_dict aliasing with tied weights, and views kept through save/load).

torch.distributed's helpers around process groups (`c10d_*`: HashStore/FileStore/TCPStore/PrefixStore semantics and
errors, subgroups, the deprecated coalesced collectives, debug levels, default backends, the distributed_c10d module).

Architecture search, pruning and efficiency (`nas_*`: DARTS mixed ops with first- and second-order bilevel steps,
GDAS/SNAS Gumbel sampling, once-for-all sliced supernets, ProxylessNAS binary gates with latency tables, SPOS
evolution with BN recalibration, zero-cost proxies, custom and structured pruning methods with lottery-ticket
rewinding, network slimming, N:M sparsity, SVD factorisation, distillation with temperature, LSQ fake quantization
and mixed-precision bit allocation, FLOP-counting hooks, model soups).

Quantitative finance and econometrics (`fin_*`: returns, rolling windows and cummax drawdowns, Black-Scholes with
torch.special's normal functions and autograd greeks, Monte Carlo with antithetic and control variates, GARCH by
LBFGS, mean-variance and risk-parity portfolios, covariance shrinkage and eigenportfolios, VaR/CVaR backtests,
Heston/SABR/CIR schemes, yield curves with searchsorted and splines, credit scorecards, deep hedging with an LSTM,
quantile regression, limit-order-book aggregation, factor models, rating migration with matrix_exp, pairs trading
with histograms, integer money arithmetic, and risk-model linear algebra).

Robotics and control (`robot_*`: the 6-D rotation representation with SVD orthogonalisation, Euler angles at gimbal
lock, DH forward kinematics with autograd Jacobians, damped-least-squares IK with joint limits, LQR by Riccati
iteration, iLQR, a batched RK4 cart-pole, tanh-squashed Gaussian behaviour cloning, particle filters with
searchsorted resampling, log-odds occupancy grids, EKF/UKF with triangular and LU solves, cubic and B-splines,
LBFGS trajectory optimisation, Lagrangian dynamics by torch.func, CEM/MPPI/gradient MPC, point-to-plane ICP,
pose-graph SLAM with sparse normal equations).

Games and search (`game_*`: Connect-4 win detection by conv2d and unfold, dihedral augmentation of Go planes and
policy targets, MCTS with PUCT over tensors with Dirichlet noise and temperature sampling, MuZero's value transform
and two-hot supports, sudoku propagation on bool tensors, an AlphaZero residual network, chess planes and bitboards,
UCB/Thompson/EXP3 bandits with Beta and Gamma posteriors, Elo and Bradley-Terry ratings by LBFGS, regret matching
and CFR on Kuhn poker, Life-like and elementary automata by conv, Go captures, liberties, ko and area scoring, a
retrograde-solved tic-tac-toe table with alpha-beta, a self-play ring buffer with augmenting collation, vmapped win
detection with per-sample policy gradients and vmap's randomness modes, move ordering with stable argsort,
top-k/nucleus/Gumbel sampling and policy distillation by KL).

Computational biology and chemistry code (`bio_*`: DNA one-hot/k-mer/PWM scanners, an Enformer-style dilated tower
with Poisson losses, ESM rotary attention with APC contact maps, AlphaFold triangle updates, invariant point attention
and structure geometry (frames, torsions, Kabsch, distograms, FAPE), MSA weighting with DCA couplings, SMILES graphs
with scatter_reduce message passing, bit-vector fingerprints with Tanimoto search, dense and sparse single-cell
preprocessing with sparse PCA and kNN graphs, NB/ZINB likelihoods in an scVI model, Felsenstein pruning with
matrix_exp, alignment dynamic programs and pair HMMs, a FASTA-to-BiLSTM tagging pipeline, bfloat16 variant scoring,
and the pipeline errors).

Federated learning and differential privacy (`fed_*`: FedAvg over deepcopied clients with size-weighted state_dict
averaging of int64 BatchNorm counters, FedProx and SCAFFOLD, FedBN, secure-aggregation masks from seeded generators,
DP-SGD by vmap(grad), by hooks with ghost norms and by Expanded Weights' grad_sample, RDP accounting, local-DP
mechanisms, top-k/QSGD/sign-SGD compression, personalised heads and Ditto, Dirichlet and shard splits, robust
aggregation with cdist Krum, split learning across detach(), foreach and asynchronous aggregation, vmap-simulated
clients, per-client loaders, and round state through BytesIO with weights_only and unsafe-global scans).

Molecular machine learning and hand-written graph networks (`chem_*`: every scatter_reduce mode with include_self
both ways and its gradients, index_reduce, segment pooling by bincount/repeat_interleave/segment_reduce offsets,
radius and kNN graphs from cdist's compute modes with canonical edges, a SchNet potential trained on forces, EGNN
equivariance checks, Set2Set and sort pooling with segment softmax, Morgan-style fingerprints packed into uint8 and
int64 words, sparse adjacency with grad_fn reprs and CSR reducing products as module buffers, featurisation with a
graph collate, DimeNet triplets with torch.special bases, a vibrational Hessian with normal modes, QEq charges by
constrained solves, and the pipeline errors).

Diffusion and score-based models (`diff_*`: sigmoid/zero-terminal-SNR/shifted schedules with float64 cumprod,
timestep, Fourier and EDM embeddings, UNet resampling with ConvTranspose2d output_size, nearest-exact and pixel
shuffles, spatial and cross attention with bool/float masks and kdim/vdim MultiheadAttention, CFG label dropout
with bernoulli generators and CFG-rescale, torch._foreach EMA with store/restore, eps/x0/v objectives with min-SNR
and pseudo-Huber, DDIM spacings with dynamic thresholding and inversion, sliced score matching with
is_grads_batched, AdamW no-decay groups with SequentialLR and get_total_norm clipping, checkpointed blocks, DiT
adaLN-Zero with unfold patchify, D3PM transition matrices, discretized-Gaussian VLBs, classifier guidance under
inference_mode, per-sample generator latents, bfloat16 autocast around a VAE posterior, compiled samplers,
RePaint inpainting, and bit-exact training resumes).

Medical imaging (`med_*`: a 3-D U-Net with InstanceNorm3d and ConvTranspose3d, soft/generalized Dice, Tversky and
focal losses over one_hot + permute, class-weighted voxel cross entropy with ignore_index and label smoothing in
float32/bfloat16/float16, CT windowing with amin/amax and quantile, 3-D crops, flips and rot90, sliding-window
inference with Gaussian weighting and 3-D padding, trilinear/nearest-exact resampling with registration by
grid_sample, max_pool3d morphology and connected components, Hausdorff/HD95 via cdist with sensitivity and
specificity, CPU autocast and bf16 models, 3-D norm layers at 16 bits, deep supervision with PolynomialLR, patch
loaders, MRI reconstruction with centred FFTs, and test-time augmentation with tracing).

Meta-learning and functional training (`meta_*`: ProtoNets on a Conv-4 with cdist's norms and modes, matching
networks with full-context embeddings, episodic samplers over seeded Generators, MAML++ with per-step batch norm and
learned step sizes, ANIL/CAVIA, Reptile through flat parameter vectors and _foreach ops, an LSTM learned optimizer,
task-conditioned hypernetworks through grouped convolutions and vmap, iMAML's conjugate gradient with
Hessian-vector products, torch.func task batching with stack_module_state, hyperparameter hypergradients through
unrolled training, R2D2 ridge heads through linalg solvers, example reweighting, LEO's latent codes, and second
derivatives through layers checked by gradgradcheck).

Neural fields and differentiable rendering (`nerf_*`: mip-NeRF integrated encodings with erf and random Fourier
features, ray-AABB slabs with stratified and searchsorted inverse-CDF sampling, Instant-NGP hash grids with int64
primes and xor, Morton-coded occupancy bitfields, 3-D grid_sample over voxel grids and tri-planes in every padding
mode, grid-based SDFs whose eikonal term differentiates grid_sample twice, IGR/NeuS/VolSDF surfaces, SIREN's
initialisation with seeded generators, TensoRF factors, quaternion and se(3) camera math with LLFF/NDC rays,
Gaussian splatting, spherical harmonics, mip-NeRF 360 losses, a coarse-to-fine training loop, and their errors).

Point clouds and 3-D geometry learning (`pc_*`: PointNet++ multi-scale grouping with FPS and ball query, DGCNN edge
features, voxelisation with floor_divide, unique(dim=0) and every scatter_reduce, QR-based random rotations with
householder_product, normals and covariance features with cov weights and histograms, Conv3d/pool/interpolate
options on occupancy grids, Chamfer/Sinkhorn-EMD/F-score, quaternion and dual-quaternion math, hashed sparse voxel
convolution against a dense Conv3d with sparse COO tensors, lidar range images, Point Transformer over packed
batches with segment_reduce and tensor_split, part-segmentation metrics with weighted spatial losses,
FoldingNet/PCN decoders, KPConv with overload-named grad_fns, a ModelNet-style loader with padded collation, a
feature T-Net regulariser and rotation voting, and the mistakes point-cloud code makes).

Image restoration and super-resolution (`sr_*`: pixel shuffle with ICNR and space-to-depth, antialiased bicubic and
Lanczos resizing with recompute_scale_factor, every padding mode and module, unfold/fold overlap-add with tiled
inference, Y-channel PSNR/SSIM/MS-SSIM, focal-frequency and spectrum losses, Gram-matrix style transfer with LBFGS,
colour-space conversions, foreach/lerp EMA weights, RRDB with a relativistic GAN, Real-ESRGAN degradations,
SwinIR windows, Charbonnier/TV/edge losses with torch.gradient, flow warping and deformable alignment,
channel/spatial attention blocks, and DnCNN/FFDNet denoising with the x8 rot90 self-ensemble).

Video understanding (`vid_*`: R(2+1)D factorised Conv3d with strides, dilation, groups and padding modes, temporal
shift by roll/narrow/slicing, SlowFast pathways with index_select and lateral fusion, non-local blocks, flow warping
over every grid_sample mode, 4-D and 5-D affine grids, 3-D max/avg pooling with ceil_mode, indices and divisors,
adaptive 3-D pools, trilinear/nearest/area resizing of clips, channels_last_3d through a network, segment consensus,
clip samplers, X3D blocks with BatchNorm3d/GroupNorm, uint8 video augmentation, tubelet ViTs and 3-D channel
shuffle).

Quantization and low-precision training (`quant_*`: fake quantization with its straight-through gradients, STE
binarization and ternary weights, hand-written observers with histc/aminmax calibration, int8 GEMM and BN-folded
integer convolution with fixed-point requantization, int4/2-bit packing through bit views, float8/bfloat16 formats
with ldexp/frexp, loss scaling with the fused _amp_ kernels, LSQ/PACT/DoReFa, Deep Compression and structured
pruning, GPTQ/SmoothQuant, NF4 with double quantization, rounding modes, an int8 KV cache, precision casts, QAT
by module swapping with parametrizations, and float bit fields with shared-exponent blocks and shift wrap-around).

Neural ODEs and SDEs written by hand (`ode_*`: Butcher-tableau Euler/midpoint/Heun/RK4 with convergence orders,
batched Dormand-Prince with torch.where step control and dense output, the adjoint method by autograd.grad with
packed augmented states, CNFs with exact and Hutchinson traces, HNN/LNN with autograd.functional Hessians, Euler-
Maruyama/Milstein and Brownian bridges on seeded generators, PINNs for Poisson and Burgers (meshgrid collocation,
dict-keyed autograd.grad, is_grads_batched, torch.func residuals), latent ODEs with GRUCell encoders, implicit
Newton solvers with LU reuse and forward-mode Jacobians, forward sensitivities through dual numbers and custom
Function jvps, neural CDEs on cubic splines, augmented ODEs and spectral-norm residual flows, RNODE regularisers
with Hutchinson probes drawn under vmap, event detection with implicit event-time gradients, and the autograd
mistakes such code makes).

Speech recognition as ASR toolkits write it (`asr_*`: CTC's alpha recursion and Viterbi alignment by hand against
F.ctc_loss, CTC's corner cases, prefix beam search with LM fusion and n-best rescoring, an RNN-T lattice by hand,
joint CTC-attention training, a location-aware LAS speller stepped with RNN cells, WER/CER edit distances over
tensors, Kaldi-style fbank with snip_edges framing, batched SpecAugment, an STFT phase vocoder, an ESPnet Conformer
with relative positions and length masks, QuartzNet masked convolutions with conv-BN fusion, a pyramidal BLSTM
listener over packed sequences, chunked streaming attention with window-aligned STFT frames, WAV/PCM parsing with
frombuffer, bfloat16 autocast front ends, DTW keyword spotting, and the pipeline's errors).

Mixture-of-experts code as Switch/GShard/Mixtral/DeepSeek implementations write it (`moe_*`: GShard top-2 dispatch
and combine tensors with capacity, Shazeer's noisy top-k with the SparseDispatcher, a Switch layer trained with
jitter, z-loss and clipping, expert-choice routing, grouped-GEMM dispatch by sort/split/searchsorted with block
padding, gradients reaching only chosen experts, experts as ModuleLists, 3-D weights and stacked vmap states, Gumbel
and REINFORCE routers, Soft MoE, shared experts with bias-based balancing, batch-prioritized capacity, bfloat16
blocks under autocast, simulated expert-parallel all-to-all, router statistics, checkpoint layout conversion, hash
and BASE layers, expert pruning and merging, padding-aware scatter/segment reductions, a resumed MoE LM).

Self-supervised representation learning (`ssl_*`: SimCLR NT-Xent three ways with SupCon and a clamped learnable
temperature, MoCo v2 queues as buffers with shuffle-BN and foreach EMA, BYOL/SimSiam predictors with stop-gradient
and tau schedules, DINO's weight-normed head with numpy schedules and last-layer gradient cancelling, Barlow Twins'
and VICReg's off-diagonal views with torch.cov weights and W-MSE whitening, tensor-op augmentations (affine_grid
crops, HSV jitter, grouped blur), hand-written LAMB/LARS, warmup-cosine schedule compositions, kNN monitors with
scatter votes, linear probes on frozen encoders with SyncBatchNorm conversion and safe_globals checkpoints, SwAV's
Sinkhorn with bf16 autocast, multi-crop collation, data2vec's instance-normed hook targets, MoCo v3's sin-cos ViT,
I-JEPA's multi-block masks, and a GatherLayer over a gloo group of one).

Forward-mode AD through custom Functions (`fwdad_*`: a Function's own jvp under dual levels, torch.func.jvp,
jacfwd, hessian and forward-mode functional.jacobian, gradcheck's forward check, structural-zero signs, and the
errors of a wrong jvp).

Ragged batches as nested tensors (`nested_*`: molecules batched from a flat atom list and offsets with per-atom MLPs,
padded energies and autograd forces, point clouds in both layouts with PointNet pooling and masked selection,
variable-length sequences through jagged scaled-dot-product attention checked against masked padded attention,
training loops over ragged series, strided per-component products, graph neighbour attention over CSR offsets, a
DataLoader collating jagged batches, and torch.nested's reprs, views and errors).

Generative adversarial networks as researchers write them (`gan_*`: DCGAN architectures with ConvTranspose2d's
output_padding and output_size, WGAN-GP/DRAGAN penalties by lerp and autograd.grad, spectral norm's u/v buffers in
both APIs, StyleGAN2's equalized-lr, modulated grouped convolution, minibatch stddev and upfirdn2d by negative
F.pad, every adversarial loss with pos_weight, FID/KID/precision-recall statistics, EMA generators with _foreach
lerps, conditional projection/ACGAN heads, pix2pix/CycleGAN with image pools, lazy R1 and path-length penalties,
truncation and slerp, ProGAN's hook-based equalized lr with fade-in, PReLU SRGANs differentiated twice,
SAGAN/BigGAN attention with orthogonal regularisation, DiffAugment/ADA, sample grids to uint8, and a toggling
two-optimizer loop).

Semantic and instance segmentation (`seg_*`: U-Net decoders by ConvTranspose2d output_size, PixelShuffle, Upsample and
bilinear/bicubic interpolate with both align_corners, DeepLabV3+ atrous separable convolutions with ASPP image pooling
and GroupNorm, per-pixel cross entropy with ignore_index/weights/label smoothing/soft targets and OHEM, soft and
generalized Dice, focal, Tversky and Lovasz losses, bincount confusion matrices with nanmean IoU, unfold/fold
sliding windows with Gaussian overlap averaging and flip/scale TTA, connected components by max_pool with unique's
inverse and counts, a Mask R-CNN mask head over grid_sample RoIAlign, a mean-field CRF, poly schedules with param
groups and resumes, PSPNet pooling and SegFormer attention, boundary/SDF/clDice losses, Panoptic-DeepLab grouping with
a discriminative loss, PointRend point sampling, a uint8 data pipeline with lookup tables, bfloat16 autocast with
channels_last, mean-teacher CutMix, CondInst dynamic heads with SOLO's Matrix NMS, deployment by Conv-BN fusion,
tracing and norm/pool class checks, and the errors and warnings such code meets).

Model compression as practitioners write it (`prune_*`: lottery-ticket global pruning with state_dict rewinding,
factorised low-rank parametrizations and SVD layer replacement, temperature-scaled KL distillation of a pruned
student, custom structured and threshold pruning methods with Taylor scores and 2:4 masks, weight/spectral/
orthogonal reparametrisations baked in for export, a cubic gradual-pruning schedule over an LSTM, filter
pruning with channel surgery, movement pruning with a straight-through top-k mask, SVD splitting of convs and
embeddings with torch.svd/svd_lowrank/pca_lowrank, FitNets/attention-transfer feature distillation, and a
unitary complex RNN kept unitary by parametrizations.orthogonal).

PyTorch's newer and barebones names (`shell_*`: einops-style ViT, MLP-Mixer and axial attention with
torch.func.rearrange and its pattern catalog and errors, the dtype table with the sub-byte, bits, float4 and
quantized dtypes, int4 weight packing through `view(torch.uint4)`, their promotion grid, CUDA-graph serving code
guarded by `torch.cuda.is_available()`, packed variable-length attention with its CPU fallback, and
torch.utils' weak tensor dictionaries, deterministic fill and model_zoo).

Distributed checkpointing in one process (`dcp_*`: torch.distributed.checkpoint's save/load of model, optimizer,
scheduler and Stateful app state, .metadata inspection, nested and non-tensor values, its errors, the state_dict
helpers and their options, DeviceMesh and DDP over a mesh in a world of one).

Deep learning on tabular data (`tab_*`: multi-hot EmbeddingBag columns with empty bags, padding and per-sample
weights, sparse ID embeddings trained by SparseAdam beside Adam, NaN-aware standardisation and imputation with
nanmedian/nanquantile interpolations and std_mean over infinities, class-imbalance losses with pos_weight, class
weights, smoothing and focal terms, hand-written sparsemax/entmax Functions, sorting-based ROC/PR-AUC, calibration
and bincount confusion matrices, an FT-Transformer, a TabTransformer with masked-cell pretraining, a TabNet with
ghost batch norm, soft and oblivious trees boosted stage by stage, group-by target encodings, piecewise-linear and
periodic numeric embeddings, quantile/Gaussian/count likelihood heads with conformal intervals, stratified splits
and oversampling samplers, early stopping with checkpoints, mixup/CutMix/swap-noise rows with EMA and SWA weights,
and numpy column frames with their casts).

Text recognition and detection (`ocr_*`: a CRNN trained with CTC and clip_grad_norm_, greedy decoding with
unique_consecutive's inverse and counts, CTC over padded and concatenated targets, prefix beam search with a lexicon
trie, tensor edit distance with CER/WER/NED, label converters over frombuffer and split, STN and TPS rectification
through affine_grid/grid_sample, GRUCell, PARSeq-permutation and SAR 2-D attention decoders, packed variable-width
lines, width-bucketed loaders with a CTC collate, interpolate/pad preprocessing, seeded affine/blur/warp
augmentation with unfold/fold block quantisation, gradient-clipping options, DBNet losses with component boxes, and
the function-form and dtype errors of the pipeline).

Continual and lifelong learning research code (`cl_*`: online EWC with buffered Fisher and means, reservoir and
DER++ replay over Subset/ConcatDataset streams, LwF distillation through kl_div's forms, multi-head ModuleDict/
ParameterDict growth, GEM/A-GEM projection with parameters_to_vector, SI path integrals with frozen layers and
added param groups, optimizer state across tasks, functional_call snapshots, model merging with task vectors,
lerp and AveragedModel, iCaRL herding, PackNet masks through prune, HAT gating, expandable networks, MIR
retrieval, accuracy-matrix metrics, and the parser's argument errors such code meets).

Bayesian and probabilistic deep learning (`bnn_*`: Bayes-by-backprop layers with softplus sigmas, MC dropout with
BALD, vmapped deep ensembles with a mixture predictive, MultivariateNormal by covariance/scale_tril/precision and
low-rank KLs, tanh-squashed and stick-breaking transforms, Gumbel/Concrete relaxations and straight-through
estimators, constraints and validate_args, RealNVP log-dets against slogdet of Jacobians, SWAG moments with
AveragedModel/update_bn, a VAE with IWAE and free bits, Laplace logistic regression with Hessians and evidence,
conjugate updates and Thompson sampling, an SGLD optimizer, evidential Dirichlet classifiers, GMMs by EM and by
gradient, local-reparameterisation convolutions, planar-flow VI, Student-t regression with a parametrized dof,
and vmap's randomness modes for Monte-Carlo sampling).

Physics-informed and scientific ML (`phys_*`: heat, Burgers, Poisson, Navier-Stokes and Schrodinger PINNs with
residuals from autograd.grad(create_graph=True) and torch.func, hard-constraint outputs, Fourier features and SIREN,
Adam-to-LBFGS switching, gradient-norm loss weighting, forward-mode derivatives, activations' higher derivatives,
collocation sampling, finite-difference stencils, gradcheck, autograd.functional, Chebyshev collocation, the NTK,
HNN/DeepONet, and the autograd mistakes of first PINNs).

Model compression and fine-tuning (`kd_*`: logit distillation with every KL form and soft cross-entropy, FitNets
hints and attention transfer through hooks, attention-map distillation with kwargs pre-hooks, hand-written LoRA by
set_submodule and as a parametrization with merging, QLoRA-style int8/int4 bases, DistilBERT initialisation through
a meta device and assign=True, state-dict surgery with load hooks, parametrize's API and norm reparametrizations,
SWA/EMA and model soups, ensemble teachers by stack_module_state, LLRD and gradual unfreezing, module bookkeeping,
BN folding with functional_call, and the losses' corner cases).

Structured prediction and sequence decoding (`crf_*`: linear-chain CRFs with masked forward algorithms and
brute-force oracles, Viterbi with backpointers, semi-Markov and CKY inside algorithms, log/max-semiring scans,
Matrix-Tree dependency marginals, CTC greedy/prefix-beam decoding and forced alignment, seq2seq beam search
with length penalties, cumulative and segment reductions, padding and packing, masked sampling with
Categorical, token losses with ignore_index, log-space gradient corners, out= forms, and a CRF module's
training loop).

Spectral methods and neural operators (`fno_*`: 1-D/2-D/3-D Fourier neural operators with cfloat weights, mode
truncation and irfftn(s=), GFNet global filters, CP-factorized spectral weights, resolution invariance under
torch.func ensembles, torch.fft's Hermitian transforms, norms and out= corners, complex autograd through
abs/angle/polar/view_as_complex, complex-valued CNNs with k-space data consistency, FFT convolution against
conv1d/conv2d, pseudo-spectral Burgers/Poisson/Navier-Stokes solvers, STFT windows and multi-resolution STFT losses,
spectral normalisation, Chebyshev/Legendre bases with Clenshaw and a Chebyshev KAN, torch.special's Bessel and
incomplete-gamma functions, periodic padding modes, complex reprs, and an operator-training pipeline with
normalizers, LpLoss and checkpoint resume).

Spiking neural networks and custom gradients (`snn_*`: LIF networks unrolled over time with subtractive and zero
resets, surrogate-gradient Functions in both ctx styles checked by gradcheck, the ctx API (mark_dirty on views,
non-differentiable outputs, materialized grads, keyword and default arguments), vmap/jvp-ready Functions, STEs for
binary and quantized nets, BPTT hooks with truncation, checkpointed and saved-tensor-hooked time chunks, a
convolutional SNN with tdBN, an adaptive recurrent LSNN, Heaviside without a derivative, and spike encoders with
spike-train losses).

Multimodal contrastive learning (`clip_*`: ViT and text towers with conv patch embedding, class tokens, causal
masks and EOT pooling, symmetric InfoNCE with an exp'd clamped logit_scale and label smoothing, SigLIP's sigmoid
loss and its chunked form, zero-shot classifiers from averaged prompt templates, recall@k/mAP retrieval metrics,
bfloat16 autocast forwards and training, activation checkpointing, LiT-style tower freezing, AttentionPool2d through
multi_head_attention_forward, temperature schedules, multi-positive and distillation losses, embedding queues with
momentum encoders, image-text data pipelines, and the mistakes such code meets).

State-space and linear-recurrence models (`mamba_*`: S4D kernels with complex diagonal parameters and FFT
convolution, HiPPO matrices with bilinear and matrix_exp discretisation, S5's eigh diagonalisation, Mamba's selective
scan sequential, in log space with logcumsumexp and chunked, Mamba-2's SSD with segment sums and multi-operand
einsums, Blelloch and Hillis-Steele scans through in-place slices, depthwise causal convs with RMSNorm and streaming
caches, a Mamba block module with inverse-softplus init, RetNet decays, RWKV time mixing, linear and gated linear
attention, an LRU with complex parallel scans, and Hyena's implicit long filters).

Parameter-efficient fine-tuning (`peft_*`: LoRA layers with merge/unmerge and dropout, freezing and trainable counts,
parametrize-based low-rank deltas, adapter-only state dicts with strict=False, hook-injected adapters, LoRA+ param
groups, bf16 bases under fp32 adapters, DoRA, TIES/SVD adapter merging, PiSSA/OLoRA inits, OFT's Cayley rotations,
LoHa/LoKr, module surgery, multi-adapter switching, accumulation with checkpointing, prefix and prompt tuning,
IA3/VeRA, conv and embedding LoRA, simulated QLoRA, functional_call over adapters, MultiheadAttention on its fast
path, meta-device init and inference-mode merges).

RLHF and preference optimisation (`rlhf_*`: a tiny causal LM's per-token log-probs from gather on log_softmax with
left padding, position ids and response masks, DPO/IPO/hinge/SimPO/ORPO/KTO/BCO losses against a frozen deepcopied
reference, Bradley-Terry and ranking reward models with running moments, PPO with GAE by reversed loops, masked
whitening, clipped surrogate and value losses over shuffled minibatches, GRPO/RLOO/GSPO group advantages, KL
estimators and adaptive controllers, top-k/top-p/min-p/typical sampling with seeded multinomial, KV-cached
generation with repetition and n-gram penalties, reference syncs with lerp_ and _foreach ops, gradient accumulation
and clipping, packed SFT with block-diagonal masks, best-of-n and process rewards, bfloat16 logits, and the
attention backends sdpa_kernel selects).

Click-through-rate and recommender ranking models (`ctr_*`: DeepFM's FM trick, DCN/DCN-v2 cross layers with
tensordot, DLRM's dot interaction through triu/tril_indices, EmbeddingBag corners (padding_idx, max-mode and
per-sample-weight gradients, 16-bit tables and their gradients), sparse=True tables with SparseAdam/Adagrad, int64
hashing tricks, AUC/gAUC/logloss/NE by sort and cumsum, bucketize/searchsorted/quantile features, MMoE/PLE/ESMM
heads, DIN/DIEN/AutoInt attention, xDeepFM's CIN and FiBiNET, negative sampling with logQ correction, Platt/isotonic
calibration with an FTRL optimizer, sparse user-item matrices, jagged features with segment_reduce, row-wise
quantized tables, learning-to-rank losses, and a click-log data pipeline with its mistakes).

Variational inference with torch.distributions (`bayes_*`: a transform zoo with biject_to/transform_to, analytic
and cross-family KLs with register_kl and infinite divergences, MixtureSameFamily fitting and misuse, local
reparameterisation layers, reprs and constraints of every family, implicit-reparameterisation gradients of
Gamma/Beta/Dirichlet draws, validate_args errors, a moment/cdf/icdf table, user-defined distributions, transforms
and constraints, Laplace approximations with HMC and SVGD, gradients through every Gaussian parameterisation and
Wishart/LKJ, MC-dropout BALD, a Gumbel-softmax VAE, torch.func curvature and per-example gradients, conjugate
Normal-Inverse-Gamma regression, and batch/event-shape bookkeeping through Independent, transforms and mixtures).

Monocular depth, stereo and 3-D geometry (`depth_*`: grid_sample's corners over dtypes, layouts, NaN grids and 5-D
volumes, Monodepth2 back-projection with meshgrid and poses built in place, stereo cost volumes by slicing, roll and
unfold with soft-argmin, SSIM through avg_pool2d with edge-aware smoothness, interpolate's modes with antialias and
pixel_shuffle, Rodrigues/quaternions/Umeyama, SILog and KITTI metrics with median scaling, the eight-point algorithm
with triangulation, MVS plane sweeps, AdaBins and ordinal bins, flow consistency with convex upsampling, a
Monodepth2 training loop, and the errors of geometry code).

Weather and climate ML (`clim_*`: WeatherBench latitude-weighted RMSE/ACC with cos(lat) weights and NaN-masked
points, FourCastNet's AFNO mixer (rfft2/irfft2, block-diagonal complex MLPs, softshrink), an FNO on lat-lon grids with
circular/replicate padding and pole flips, spherical harmonic transforms by Gauss-Legendre quadrature and Legendre
recurrences, zonal power spectra with windows and a spectral loss, a GraphCast-style icosahedral multimesh with k-NN
grid2mesh edges and index_add/scatter_reduce message passing, per-variable normalisation with Welford statistics and
buffers, autoregressive rollouts with checkpointing, teacher forcing and truncation, ERA5-like windows by unfold with
a DataLoader, precipitation transforms with CRPS/spread-skill/rank histograms, grid_sample regridding over periodic
longitudes, pixel-shuffle downscaling, bfloat16 CPU autocast, vorticity/column integrals by gradient/trapezoid, and
the float-for-int and shape mistakes such pipelines make).


Gaussian processes and kernel methods (`gpy_*`: an exact GP with softplus hyperparameters fitted by Adam and LBFGS,
jitter retries on cholesky_ex info codes, Matern/periodic/spectral-mixture kernel modules, KISS-GP interpolation with
sparse W and FFT Toeplitz MVMs, EI/PI/UCB/LogEI on ndtr with Sobol starts, a whitened SVGP with Gauss-Hermite
ELBOs, Student-t and Bernoulli likelihoods, the solvers' LAPACK layouts and out= dtypes, CG with a pivoted-Cholesky
preconditioner, Lanczos/Hutchinson log-determinants, batched and Kronecker multitask GPs, random Fourier features,
and the LinAlgErrors of singular, NaN and inf kernels).

Information retrieval and dense search (`ret_*`: a bi-encoder with in-batch InfoNCE, a clamped learnable temperature
and label smoothing, hard-negative mining with margin/triplet/cosine-embedding losses, BM25/TF-IDF over COO/CSR with
scatter_add frequencies, an int32-offset CSR inverted index with sparse_compressed_tensor, SPLADE with CSR @ CSR and
dsmm/hsmm, binary/int8 quantization with packbits-style bit ops and `_int_mm`, ColBERT MaxSim with masks and nested
tensors, product quantization with ADC tables and cdist modes, IVF lists by unique_consecutive/searchsorted, LSH with
k-means++, Matryoshka embeddings with chunked kNN, a cross-encoder re-ranker, an MS MARCO triples pipeline with
masked pooling, and IR metrics with ties).

Speech synthesis and vocoders without torchaudio (`tts_*`: Tacotron 2's location-sensitive attention and decoder
loop with an always-on prenet dropout and pos_weight stop tokens, guided-attention and beta-binomial priors,
FastSpeech length regulation by repeat_interleave and searchsorted, monotonic alignment search as a tensor DP,
HiFi-GAN with weight_norm hooks and their removal, multi-period/multi-scale discriminators with LSGAN and
feature-matching losses, multi-resolution STFT losses over every window, mel spectrograms by hand, Griffin-Lim,
mu-law WaveNet inputs, pitch/energy bucketize embeddings, Glow-TTS flows with ActNorm, invertible 1x1 convs and
couplings, VITS's random segments, KL and weight-normed biases, and the shape and length mistakes of such code).

Anomaly and out-of-distribution detection (`anom_*`: autoencoder reconstruction scores with quantile thresholds,
Deep SVDD with a bias-free network and soft boundary, PatchCore's greedy coreset and kNN patch scores with
unfold/avg_pool2d features, PaDiM's per-position Gaussians and Mahalanobis maps, energy and ODIN scores,
tied-covariance Mahalanobis, an isolation forest over seeded Generators, rolling-window time-series scores,
AUROC/AUPR/FPR@95 with ties, GANomaly and f-AnoGAN losses, DAGMM energies, EVT/SPOT thresholds,
ReAct/DICE/ASH/ViM/GradNorm, MemAE addressing with cdist gradients of every order, outlier exposure with CutPaste,
and the mistakes anomaly code makes).

Andrej Karpathy's "Neural Networks: Zero to Hero" as learners type it (`zth_*`: micrograd's Value engine and MLP
checked against torch autograd in float64, makemore's bigram count table sampled by multinomial from seeded
Generators, the MLP language model with C[X] embeddings, F.cross_entropy against a manual softmax and a
learning-rate sweep, kaiming gains with a hand-written BatchNorm against nn.BatchNorm1d, the backprop-ninja cmp() of
every intermediate's retained grad, the WaveNet hierarchy with FlattenConsecutive, the self-attention trick with
tril masks, a GPT with top-k generation and estimate_loss, nanoGPT's and minGPT's training and optimizer set-ups,
makemore's RNN/GRU/MLP zoo over an infinite RandomSampler, byte-level BPE merges, activation and gradient
diagnostics printed with %-formats of 0-d tensors, and RNG states with random_split).

Integer and bit-level code (`bits_*`: a Bloom filter with splitmix hashes, int64 wraparound and scatter, float bit
tricks through view(dtype) with Quake's inverse sqrt, float16/bfloat16 fields and NaN payloads, mask packing into
uint8 with table and SWAR popcounts, Gray/Morton codes and bit reversal, floor_divide/remainder/fmod signs with
zero divisors and integer pow, uint16/32/64 and the kernels PyTorch lacks for them, overflow and silent
out-of-range casts, integer reprs, shifts by negative and oversized amounts over every integer dtype, ties in
sorts and argmax with bincount and searchsorted, int4 nibble packing, xorshift/PCG generators, bitset graphs,
promotion rules with in-place casting refusals, and bfloat16/float16 rounding by hand: nearest-even and stochastic).

Survival analysis and time-to-event models (`surv_*`: Cox partial likelihoods over time-sorted risk sets by
logcumsumexp with Breslow and Efron ties, LBFGS fits and Hessian standard errors, a DeepSurv loop with SELU,
AlphaDropout and a validation C-index, DeepHit's PMF likelihood and ranking loss, logistic-hazard and PC-Hazard
losses, N-MTLR, Deep Survival Machines' Weibull mixtures, Weibull/log-normal/Gumbel AFT likelihoods with
torch.distributions and their edge cases, Kaplan-Meier/Nelson-Aalen with Greenwood bands and a log-rank test,
Aalen-Johansen competing risks, Harrell's/Uno's C-index with ties, the IPCW Brier score and its integral, time
grids by quantile/histogram/bucketize, stable log1mexp and log_ndtr tricks, float16/bfloat16 curves under
autocast, simulated censored data from seeded samplers, and the NaN, empty-risk-set and int/float mistakes such
code makes).

Image registration (`reg_*`: 2-D spatial transformers over every grid_sample mode, padding and align_corners,
VoxelMorph's scaling-and-squaring of velocity fields, finite-difference regularisers with F.pad's modes, B-spline
FFD control grids through F.interpolate and conv_transpose3d, Parzen-window mutual information with histograms,
Jacobian determinants with torch.func, rigid rotations with Kabsch and lstsq, avg_pool3d pyramids with their
float-size mistakes, local NCC four ways, Demons with Gaussian smoothing, a 3-D affine network trained through
affine_grid, and the mistakes registration code makes: grid order, align_corners mismatches, unnormalised
displacements).

Model-based RL and world models (`dreamer_*`: a PlaNet-style Gaussian RSSM with free nats, symlog/symexp with
two-hot targets by bucketize/searchsorted and scatter, 32x32-style categorical latents with unimix and
OneHotCategoricalStraightThrough in Independent, a tanh-Normal actor through TransformedDistribution, TD(lambda)-returns
with percentile normalisation by quantile and an EMA, an RSSM with a LayerNorm GRU and KL balancing with free bits,
TD-MPC planning with a vmapped Q-ensemble and MPPI, MuZero supports with gradient scaling, hand-written Distribution
subclasses and register_kl, clip_grad_norm_ with Adam, a numpy replay buffer of sequences, imagination gradients
under no_grad/inference_mode, fan-avg and orthogonal inits, and the mistakes world-model code makes).

Causal-inference and uplift code (`causal_*`: logistic propensity scores fitted by LBFGS with clamped IPW/Hajek
weights, DragonNet heads with masked per-treatment losses, 2SLS with every lstsq driver, CFRNet's MMD and Sinkhorn
IPMs with a training loop, bootstrap intervals from seeded Generators and 1-D-q quantiles, nearest-neighbour
matching with ties and calipers, synthetic control on the simplex, cross-fitted AIPW, Qini/AUUC curves, a
difference-in-differences event study with cluster-robust errors, and the mistakes causal code makes).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
HERE = ROOT / "tests" / "api_programs"
PROGRAMS = sorted(p.stem for p in HERE.glob("*.py"))
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+")


def _env() -> dict:
    srcs = [str(p) for p in sorted((ROOT / "packages").glob("*/src"))]
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(srcs + [env["PYTHONPATH"]] if env.get("PYTHONPATH") else srcs)
    return env


def _run(cmd: list[str]) -> str:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=_env(), cwd=ROOT)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    return r.stdout


def _same_line(got: str, want: str) -> bool:
    """Equal text, with each printed float within 2e-4 of PyTorch's (-0.0 and 0.0 alike)."""
    if got == want:
        return True
    if _NUMBER.sub("#", got) != _NUMBER.sub("#", want):
        return False
    return all(abs(float(a) - float(b)) <= 2e-4 for a, b in zip(_NUMBER.findall(got), _NUMBER.findall(want)))


def _compare(got: str, name: str) -> None:
    want = (HERE / "expected" / f"{name}.txt").read_text().splitlines()
    lines = got.splitlines()
    bad = [f"line {i + 1}:\n  ember: {g}\n  torch: {w}" for i, (g, w) in enumerate(zip(lines, want))
           if not _same_line(g, w)]
    assert not bad and len(lines) == len(want), "\n".join(bad[:10]) + f"\n({len(lines)} lines, want {len(want)})"


class _Server:
    """tests/api_program_server.py, started on first use: each program runs in a child forked off a process that
    imported ember.torch once, as `python -m ember.torch` would run it (where `os.fork` exists)."""

    def __init__(self) -> None:
        self.proc = None

    def run(self, program: pathlib.Path, tmp: pathlib.Path) -> str:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen([sys.executable, "-c", (ROOT / "tests" / "api_program_server.py").read_text()],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=_env(),
                                         cwd=ROOT)
            ready = self.proc.stdout.readline()
            assert ready == "ready\n", f"the program server did not start: {ready!r}"
        out, err = tmp / "stdout.txt", tmp / "stderr.txt"
        self.proc.stdin.write(json.dumps([str(program), str(out), str(err)]) + "\n")
        self.proc.stdin.flush()
        code = self.proc.stdout.readline()
        assert code, "the program server died"
        stdout = out.read_text()
        assert int(code) == 0, f"exit code {code.strip()}\n" + stdout[-3000:] + err.read_text()[-5000:]
        return stdout

    def close(self) -> None:
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(60)


@pytest.fixture(scope="module")
def server():
    s = _Server()
    yield s
    s.close()


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_what_pytorch_prints(name, server, tmp_path):
    program = HERE / f"{name}.py"
    if hasattr(os, "fork"):
        _compare(server.run(program, tmp_path), name)
    else:
        _compare(_run([sys.executable, "-m", "ember.torch", str(program)]), name)


@pytest.mark.torch
@pytest.mark.parametrize("name", PROGRAMS)
def test_stored_output_is_pytorchs(name):
    pytest.importorskip("torch")
    _compare(_run([sys.executable, str(HERE / f"{name}.py")]), name)
