"""One module per runtime fix. ``FIX_CLASSES`` is the install order, which matters where fixes wrap
the same entry point (``DataLoader.__iter__``): later fixes wrap earlier ones, so the loader
fallback (outermost) sees the sharding of ``ddp``, which runs before ``set_epoch`` looks at the
sampler."""

from .set_epoch import SetEpochFix
from .ddp import DDPFix
from .loader_defaults import LoaderDefaultsFix
from .cudnn_flags import CudnnFlagsFix
from .amp import AmpFix
from .sync_report import SyncReportFix
from .batchnorm_guard import BatchNormGuardFix
from .device_native import DeviceNativeFix
from .ddp_accumulation import DDPAccumulationFix
from .tf32 import TF32Fix
from .anomaly_mode import AnomalyModeFix
from .conv_bias import ConvBiasFix

FIX_CLASSES = [SetEpochFix, DDPFix, LoaderDefaultsFix, CudnnFlagsFix, AmpFix,
               SyncReportFix, BatchNormGuardFix,
               DeviceNativeFix]
# Observers and the opt-in TF32 setting: they wrap no entry point another fix wraps.
FIX_CLASSES += [DDPAccumulationFix, TF32Fix, AnomalyModeFix, ConvBiasFix]
