#pragma once
#ifdef __cplusplus
extern "C" {
#endif
int cxapian_placeholder(void);
#ifdef __cplusplus
}
#endif
