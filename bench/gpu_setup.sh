# Sourced by every bench/*.sh GPU script (from the project root, .gpu carried):
# unpacks the ICD loader .debs and registers NVIDIA's OpenCL driver, which the
# GPU machine has but does not register (/work/shared/gpu/README.md).
for f in .gpu/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /etc/OpenCL/vendors
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
