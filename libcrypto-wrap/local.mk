# libcrypto-wrap: OpenSSL 3, EVP only (hip_crypto.h is its public header)
noinst_LIBRARIES += libcrypto-wrap/libcrypto-wrap.a
libcrypto_wrap_libcrypto_wrap_a_SOURCES = \
	libcrypto-wrap/hip_crypto.h \
	libcrypto-wrap/cw_internal.h \
	libcrypto-wrap/init.c \
	libcrypto-wrap/digest.c \
	libcrypto-wrap/hmac.c \
	libcrypto-wrap/hkdf.c \
	libcrypto-wrap/cipher.c \
	libcrypto-wrap/cw_hostid.h \
	libcrypto-wrap/hostid.c \
	libcrypto-wrap/hostid_sig.c \
	libcrypto-wrap/dh.c \
	libcrypto-wrap/puzzle.c \
	libcrypto-wrap/esp_crypto.c
