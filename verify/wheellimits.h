/* verify/wheellimits.h: the ceilings a wheel is checked under, shared by the verifier
 * (verify/wheel.h) and the stream that hashes a wheel as it arrives (verify/wheelstream.h), which
 * the verifier uses: apart from both so that neither header includes the other. Plain data. */
#ifndef WP_WHEELLIMITS_H
#define WP_WHEELLIMITS_H

/* A zero field means the default. */
struct wp_wheel_limits {
	long long max_members;    /* default 200,000 */
	long long max_total_size; /* uncompressed bytes, all members; default 8 GiB */
	long long max_ratio;      /* uncompressed:compressed per member; default 500 */
	long long ratio_min_size; /* the ratio applies to members larger than this; default 1 MiB */
	long long max_record;     /* bytes of RECORD; default 64 MiB (torch's is ~2 MiB) */
};

/* The limits with every zero field given its default. */
void wp_wheel_limits_fill(struct wp_wheel_limits *out, const struct wp_wheel_limits *in);

#endif
