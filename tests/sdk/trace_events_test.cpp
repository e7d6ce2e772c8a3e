// The SDK's trace-event classifier: categories, operators, device rows, and HTA's kernel types by name.
#include "cann_debug/trace_events.hpp"

#include <gtest/gtest.h>

namespace cann_debug::trace {
namespace {

TEST(TraceEvents, KernelTypesUseHtaPatterns) {
  EXPECT_EQ(kernel_type("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("ncclDevKernel_AllGather_RING_LL"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("void at::foo<ncclKernel>"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("hcclAllReduce"), KernelType::kCommunication);
  EXPECT_EQ(kernel_type("hipMemcpyAsync"), KernelType::kCommunication);  // (^hip) is tested first
  EXPECT_EQ(kernel_type("Memcpy HtoD (Pageable -> Device)"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("Memset (Device)"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("dma_request"), KernelType::kMemory);
  EXPECT_EQ(kernel_type("Stream Sync"), KernelType::kOther);
  EXPECT_EQ(kernel_type("Context Sync"), KernelType::kOther);
  EXPECT_EQ(kernel_type("Stream Wait Event"), KernelType::kOther);
  EXPECT_EQ(kernel_type("pe_exe"), KernelType::kOther);
  EXPECT_EQ(kernel_type("runFunction - job"), KernelType::kOther);
  EXPECT_EQ(kernel_type("cudaLaunchKernelExC"), KernelType::kOther);
  EXPECT_EQ(kernel_type("volta_sgemm_128x64_nn"), KernelType::kComputation);
  EXPECT_EQ(kernel_type("event_wait"), KernelType::kComputation);
  EXPECT_EQ(kernel_type("triton_poi_fused_add_cos_sin_0"), KernelType::kComputation);
}

TEST(TraceEvents, CommunicationKernelsBeyondNccl) {
  for (const char* name :
       {"rcclKernel_AllReduce", "mscclKernel_Sum_half_Simple_false", "hcom_allReduce__483_2", "HcclAllGather",
        "void deep_ep::intranode::dispatch<8, 768>(int4*, float*)",
        "void deep_ep::internode_ll::combine<false, 7168>(void*)",
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)",
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<float>(AllReduceParams)",
        "userbuffers_fp16_sum_inplace_gpu_rr_rs", "nvshmemi_transfer_rma_kernel",
        "void at::native::all_to_all_single_kernel()"})
    EXPECT_EQ(kernel_type(name), KernelType::kCommunication) << name;
  // Reductions and gathers inside one device stay computation.
  for (const char* name : {"void at::native::reduce_kernel<512, 1>(ReduceOp)",
                           "void at::native::vectorized_gather_kernel<16>(char*)",
                           "void at::native::index_elementwise_kernel<128, 4>"})
    EXPECT_EQ(kernel_type(name), KernelType::kComputation) << name;
  EXPECT_TRUE(is_launch_call("cudaLaunchKernel"));
  EXPECT_TRUE(is_launch_call("cudaMemsetAsync"));
  EXPECT_TRUE(is_launch_call("runFunction - job_prep_and_submit_for_execution"));
  EXPECT_FALSE(is_launch_call("hipLaunchKernel"));
  EXPECT_FALSE(is_launch_call("cudaMemcpy"));
}

TEST(TraceEvents, CategoriesOfKinetoAndOtherExporters) {
  EXPECT_EQ(category_of("cpu_op"), EventCategory::kOperator);
  EXPECT_EQ(category_of("operator"), EventCategory::kOperator);
  EXPECT_EQ(category_of("gpu_op"), EventCategory::kOperator);
  EXPECT_EQ(category_of("kernel"), EventCategory::kKernel);
  EXPECT_EQ(category_of("gpu_memcpy"), EventCategory::kMemcpy);
  EXPECT_EQ(category_of("gpu_memset"), EventCategory::kMemset);
  EXPECT_EQ(category_of("cuda_runtime"), EventCategory::kRuntime);
  EXPECT_EQ(category_of("cuda_driver"), EventCategory::kRuntime);
  EXPECT_EQ(category_of("user_annotation"), EventCategory::kUserAnnotation);
  EXPECT_EQ(category_of("gpu_user_annotation"), EventCategory::kGpuUserAnnotation);
  EXPECT_EQ(category_of("python_function"), EventCategory::kOther);
  // Kineto's first releases (the TensorBoard plugin's samples) capitalised them.
  EXPECT_EQ(category_of("Kernel"), EventCategory::kKernel);
  EXPECT_EQ(category_of("Memcpy"), EventCategory::kMemcpy);
  EXPECT_EQ(category_of("Memset"), EventCategory::kMemset);
  EXPECT_EQ(category_of("Runtime"), EventCategory::kRuntime);
  EXPECT_EQ(category_of("Operator"), EventCategory::kOperator);
  EXPECT_EQ(category_of("Trace"), EventCategory::kOther);
  EXPECT_EQ(category_of("KERNEL_LAUNCH_AND_MORE"), EventCategory::kOther);
  EXPECT_TRUE(is_device_row("kernel"));
  EXPECT_TRUE(is_device_row("gpu_memset"));
  EXPECT_FALSE(is_device_row("cuda_runtime"));
  EXPECT_FALSE(is_device_row("cpu_op"));
}

TEST(TraceEvents, MixtureOfExpertsComputationByName) {
  for (const char* name : {"GroupedGemm", "grouped_gemm::ops::gmm", "aten::_grouped_mm", "GroupedMatmul",
                           "aclnnGroupedMatmulV4_GroupedMatmul_GroupedMatmul", "npu_grouped_matmul",
                           "fused_moe_kernel", "moe.expert3", "MoE_Expert_FFN", "experts.forward"})
    EXPECT_TRUE(is_moe_expert_compute(name)) << name;
  for (const char* name : {"aten::mm", "moe.dispatch", "moe.combine", "router", "MoeGatingTopKSoftmax",
                           "gloo:all_to_all", "ncclKernel_AllToAll"})
    EXPECT_FALSE(is_moe_expert_compute(name)) << name;
}

Event slice(std::string name, std::string category) {
  Event e;
  e.name = std::move(name);
  e.category = std::move(category);
  e.phase = 'X';
  e.start_ns = 1000;
  e.duration_ns = 50;
  return e;
}

TEST(TraceEvents, OperatorsAreOperatorOrKernelSlicesOrAtenNames) {
  EXPECT_TRUE(is_operator_event(slice("aten::conv2d", "cpu_op")));
  EXPECT_TRUE(is_operator_event(slice("volta_sgemm_128x64_nn", "kernel")));
  EXPECT_TRUE(is_operator_event(slice("MatMul", "operator")));
  EXPECT_TRUE(is_operator_event(slice("aten::add", "")));  // a trace without categories
  EXPECT_FALSE(is_operator_event(slice("ProfilerStep#3", "user_annotation")));
  EXPECT_FALSE(is_operator_event(slice("ProfilerStep#3", "Operator")));  // Kineto 1.8: a step, too
  EXPECT_FALSE(is_operator_event(slice("cudaLaunchKernel", "cuda_runtime")));
  Event instant = slice("aten::add", "cpu_op");
  instant.phase = 'i';
  EXPECT_FALSE(is_operator_event(instant));
  Event negative = slice("aten::add", "cpu_op");
  negative.duration_ns = -1;
  EXPECT_FALSE(is_operator_event(negative));
  Event untimed = slice("aten::add", "cpu_op");
  untimed.start_ns = kNoTimestamp;
  EXPECT_FALSE(is_operator_event(untimed));
  EXPECT_TRUE(is_framework_operator("aten::mm"));
  EXPECT_FALSE(is_framework_operator("at::mm"));
}

}  // namespace
}  // namespace cann_debug::trace
