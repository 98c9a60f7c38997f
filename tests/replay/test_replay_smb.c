/* Unit tests: the smb backend's helpers (replay/backends/smb_util.c): targets, URL encoding, auth files, statuses. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "formats/error.h"
#include "formats/op.h"
#include "replay/backends/smb_sock.h"
#include "replay/backends/smb_util.h"

#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

static void test_target(void **state)
{
	(void)state;
	rp_smb_target t;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(rp__smb_target_parse("smb://127.0.0.1:1445/share", &t, eb), 0);
	assert_string_equal(t.host, "127.0.0.1");
	assert_int_equal(t.port, 1445);
	assert_string_equal(t.share, "share");
	assert_string_equal(t.dir, "");
	assert_string_equal(t.base, "smb://127.0.0.1:1445/share");
	/* Escapes decoded, "." and empty components dropped, then encoded again the one way. */
	assert_int_equal(rp__smb_target_parse("SMB://srv/my%20share//a/./b%25c/", &t, eb), 0);
	assert_int_equal(t.port, 0);
	assert_string_equal(t.share, "my share");
	assert_string_equal(t.dir, "a/b%c");
	assert_string_equal(t.base, "smb://srv/my%20share/a/b%25c");
	assert_int_equal(rp__smb_target_parse("smb://[::1]:99/s", &t, eb), 0);
	assert_string_equal(t.host, "[::1]");
	assert_int_equal(t.port, 99);
}

static void test_target_refused(void **state)
{
	(void)state;
	rp_smb_target t;
	char eb[RP_ERRBUF_SIZE];
	static const struct {
		const char *url, *says;
	} bad[] = {
		{ "nfs://h/x", "not an smb:// URL" },
		{ "smb://user:secret@h/share", "credentials do not go in the URL" },
		{ "smb://h/share?x=1", "no query or fragment" },
		{ "smb://h/share#f", "no query or fragment" },
		{ "smb://h", "no share" },
		{ "smb://h/", "no share" },
		{ "smb:///share", "no host" },
		{ "smb://h:0/s", "bad port" },
		{ "smb://h:65536/s", "bad port" },
		{ "smb://h:12x/s", "bad port" },
		{ "smb://h:/s", "bad port" },
		{ "smb://h/s/a/../b", "'..' in the directory" },
		{ "smb://h/s/a%2Fb", "bad directory name" },
		{ "smb://h/s/a%00", "bad directory name" },
		{ "smb://h/s/a%4", "bad directory name" },
		{ "smb://h/s/a b", "a space or control character" },
		{ "smb://[::1/s", "unterminated" },
		{ "smb://b\261\261\261/m//bb/b", "no host name has" }, /* found by fuzz-smb-auth: raw bytes in the URL */
		{ "smb://h%41/s", "no host name has" },
		{ "smb://h<x>/s", "no host name has" },
		{ "smb://h/s/..%5Cx", "a character SMB reserves" },
		{ "smb://h/s/a%3Ab", "a character SMB reserves" },
		{ "smb://h/IPC$", "not a disk share" },
		{ "smb://h:99/ipc%24/x", "not a disk share" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		eb[0] = '\0';
		assert_true(rp__smb_target_parse(bad[i].url, &t, eb) < 0);
		if (!strstr(eb, bad[i].says))
			fail_msg("%s: '%s' does not say '%s'", bad[i].url, eb, bad[i].says);
	}
	/* The URL's password is never repeated in the error. */
	rp__smb_target_parse("smb://user:secret@h/share", &t, eb);
	assert_null(strstr(eb, "secret") == eb ? NULL : strstr(eb, "secret:"));
}

static void test_url_join(void **state)
{
	(void)state;
	char u[64] = "smb://h/s";
	int n = rp__smb_url_join(u, sizeof(u), 9, "a b/%#?;@+/\xe2\x82\xac~._-");
	assert_int_equal(n, (int)strlen(u));
	assert_string_equal(u, "smb://h/s/a%20b/%25%23%3F%3B%40%2B/%E2%82%AC~._-");
	/* "" adds nothing; too long is refused and leaves the URL as it was. */
	strcpy(u, "smb://h/s");
	assert_int_equal(rp__smb_url_join(u, sizeof(u), 9, ""), 9);
	char small[16] = "smb://h/s";
	assert_int_equal(rp__smb_url_join(small, sizeof(small), 9, "%%%"), -ENAMETOOLONG);
	assert_string_equal(small, "smb://h/s");
	assert_int_equal(rp__smb_url_join(small, sizeof(small), 9, "abcde"), 15);
	assert_int_equal(rp__smb_url_join(small, sizeof(small), 9, "abcdef"), -ENAMETOOLONG);
}

static void test_path_reserved(void **state)
{
	(void)state;
	/* MS-FSCC 2.1.5.2: every character SMB reserves in a name, alone and inside one. */
	static const char reserved[] = "\\:*?\"<>|";
	char p[8];
	for (const char *r = reserved; *r; r++) {
		snprintf(p, sizeof(p), "a/b%cc", *r);
		if (!rp__smb_path_reserved(p))
			fail_msg("'%c' passed", *r);
	}
	for (int ch = 1; ch < 0x20; ch++) {
		snprintf(p, sizeof(p), "%c", ch);
		assert_true(rp__smb_path_reserved(p));
	}
	assert_true(rp__smb_path_reserved("..\\secret\\file"));
	/* What a POSIX name and an SMB one share passes: URL syntax is encoded, not refused. */
	assert_false(rp__smb_path_reserved(""));
	assert_false(rp__smb_path_reserved("d%20#x/a b%c#d+e;f@g/\xe2\x82\xac~._-'[]{}()!$&=,^`\x7f"));
}

static int parse(const char *text, rp_smb_creds *c, char *eb)
{
	memset(c, 0, sizeof(*c));
	eb[0] = '\0';
	return rp__smb_authfile_parse(text, strlen(text), "auth", c, eb);
}

static void test_authfile(void **state)
{
	(void)state;
	rp_smb_creds c;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(parse("username = alice\npassword =  p w = x \ndomain=WG\n", &c, eb), 0);
	assert_true(c.has_user && c.has_password && c.has_domain);
	assert_string_equal(c.user, "alice");
	assert_string_equal(c.password, "p w = x");
	assert_string_equal(c.domain, "WG");
	/* Comments, blank lines, CRLF, any case of the key, no final newline; a missing line is not given. */
	assert_int_equal(parse("# x\n; y\n\r\n  USERNAME\t=\tbob\r\n", &c, eb), 0);
	assert_string_equal(c.user, "bob");
	assert_false(c.has_password);
	assert_int_equal(parse("password =\n", &c, eb), 0);
	assert_true(c.has_password);
	assert_string_equal(c.password, "");
}

static void test_authfile_errors(void **state)
{
	(void)state;
	rp_smb_creds c;
	char eb[RP_ERRBUF_SIZE];
	assert_true(parse("username = a\npasswd = hunter2\n", &c, eb) < 0);
	assert_string_equal(eb, "auth:2: unknown key 'passwd' (username, password, domain)");
	assert_true(parse("\n\nhunter2\n", &c, eb) < 0);
	assert_non_null(strstr(eb, "auth:3: expected 'username = U'"));
	assert_null(strstr(eb, "hunter2"));
	char long_pw[400] = "password = ";
	memset(long_pw + 11, 'x', 300);
	assert_int_equal(parse(long_pw, &c, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "auth:1: password longer than 255 bytes"));
	assert_true(rp__smb_authfile_parse("username = a\0b\n", 15, "auth", &c, eb) < 0);
	assert_non_null(strstr(eb, "auth:1: a NUL byte"));
	char *const big = calloc(1, RP_SMB_AUTHFILE_MAX + 2);
	assert_non_null(big);
	memset(big, '#', RP_SMB_AUTHFILE_MAX + 1);
	assert_int_equal(rp__smb_authfile_parse(big, RP_SMB_AUTHFILE_MAX + 1, "auth", &c, eb), RP_E_LIMIT);
	free(big);
}

static int user(const char *text, rp_smb_creds *c, char *eb)
{
	memset(c, 0, sizeof(*c));
	eb[0] = '\0';
	return rp__smb_user_parse(text, c, eb);
}

/* The user option's grammar, smbclient -U's: [DOMAIN\]USER[%PASS], DOMAIN/USER too. */
static void test_user_grammar(void **state)
{
	(void)state;
	rp_smb_creds c;
	char eb[RP_ERRBUF_SIZE];
	assert_int_equal(user("alice", &c, eb), 0);
	assert_true(c.has_user && !c.has_password && !c.has_domain);
	assert_string_equal(c.user, "alice");
	assert_int_equal(user("WG\\bob%s3,cr=t", &c, eb), 0);
	assert_true(c.has_user && c.has_password && c.has_domain);
	assert_string_equal(c.domain, "WG");
	assert_string_equal(c.user, "bob");
	assert_string_equal(c.password, "s3,cr=t");
	assert_int_equal(user("WG/bob", &c, eb), 0);
	assert_string_equal(c.domain, "WG");
	assert_string_equal(c.user, "bob");
	assert_false(c.has_password);
	/* The first '%' ends USER: a '\', '/' or '%' in the password is the password's. */
	assert_int_equal(user("bob%a/b\\c%d", &c, eb), 0);
	assert_false(c.has_domain);
	assert_string_equal(c.user, "bob");
	assert_string_equal(c.password, "a/b\\c%d");
	assert_int_equal(user("D\\u/v%p", &c, eb), 0); /* the first separator ends DOMAIN */
	assert_string_equal(c.domain, "D");
	assert_string_equal(c.user, "u/v");
	/* An empty PASS is none (the auth file's or $REPRISE_SMB_PASSWORD then). */
	assert_int_equal(user("bob%", &c, eb), 0);
	assert_false(c.has_password);
	/* Over what was there (the auth file's): only the parts given. */
	memset(&c, 0, sizeof(c));
	strcpy(c.password, "fromfile");
	c.has_password = true;
	assert_int_equal(rp__smb_user_parse("carol", &c, eb), 0);
	assert_string_equal(c.user, "carol");
	assert_string_equal(c.password, "fromfile");
	/* Errors say what is wrong, never the text. */
	static const struct {
		const char *text;
		int rc;
		const char *want;
	} bad[] = {
		{ "", RP_E_INVAL, "smb: option 'user': no user name ([DOMAIN\\]USER[%PASS])" },
		{ "%hunter2", RP_E_INVAL, "no user name" },
		{ "WG\\%hunter2", RP_E_INVAL, "no user name" },
		{ "\\bob%hunter2", RP_E_INVAL, "smb: option 'user': no domain before the '\\'" },
		{ "/bob", RP_E_INVAL, "no domain before the '/'" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const int rc = user(bad[i].text, &c, eb);
		if (rc != bad[i].rc || !strstr(eb, bad[i].want) || strstr(eb, "hunter2"))
			fail_msg("'%s': rc %d '%s', wanted %d '%s'", bad[i].text, rc, eb, bad[i].rc, bad[i].want);
		assert_false(c.has_user);
	}
	char long_user[400] = "WG\\";
	memset(long_user + 3, 'u', 300);
	assert_int_equal(user(long_user, &c, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "user name longer than 255 bytes"));
	char long_pw[400] = "bob%";
	memset(long_pw + 4, 'p', 300);
	assert_int_equal(user(long_pw, &c, eb), RP_E_LIMIT);
	assert_non_null(strstr(eb, "password longer than 255 bytes"));
	assert_false(c.has_user); /* nothing taken from a text that fails */
}

static void test_status(void **state)
{
	(void)state;
	/* libsmbclient's errno values (Samba's NTSTATUS to errno map) are the canonical ones. */
	assert_int_equal(rp__smb_status(0), 0);
	assert_int_equal(rp__smb_status(ENOENT), ENOENT);  /* OBJECT_NAME_NOT_FOUND, OBJECT_PATH_NOT_FOUND */
	assert_int_equal(rp__smb_status(EEXIST), EEXIST);  /* OBJECT_NAME_COLLISION */
	assert_int_equal(rp__smb_status(EBUSY), EBUSY);    /* SHARING_VIOLATION */
	assert_int_equal(rp__smb_status(EACCES), EACCES);  /* ACCESS_DENIED */
	assert_int_equal(rp__smb_status(ENOTEMPTY), ENOTEMPTY);
	assert_int_equal(rp__smb_status(EISDIR), EISDIR);
	assert_int_equal(rp__smb_status(ENOTSUP), EOPNOTSUPP);
	assert_int_equal(rp__smb_status(ENODATA), ENODATA); /* END_OF_FILE, as the backend gives it back */
	/* Any other errno keeps its (Linux, portable) number, as the posix backend's do. */
	assert_int_equal(rp__smb_status(EKEYEXPIRED), EKEYEXPIRED);
	assert_true(rp__smb_conn_lost(ECONNREFUSED));
	assert_true(rp__smb_conn_lost(ECONNRESET));
	assert_true(rp__smb_conn_lost(ETIMEDOUT));
	assert_false(rp__smb_conn_lost(ENOENT));
	assert_false(rp__smb_conn_lost(EACCES));
}

/* A listener on 127.0.0.1 (an ephemeral port) and a client connected to it; the port is returned. */
static unsigned listen_connect(int *lfd, int *cfd, int *afd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	*lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*lfd >= 0);
	assert_int_equal(bind(*lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(*lfd, 4), 0);
	assert_int_equal(getsockname(*lfd, (struct sockaddr *)&a, &len), 0);
	*cfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(*cfd >= 0);
	assert_int_equal(connect(*cfd, (struct sockaddr *)&a, sizeof(a)), 0);
	*afd = accept(*lfd, NULL, NULL);
	assert_true(*afd >= 0);
	return ntohs(a.sin_port);
}

/*
 * The server's sockets are learned by port and cut: a reader waiting on one
 * sees the end of the stream at once; a socket to another port is left alone.
 */
static void test_peers_cut(void **state)
{
	(void)state;
	int l1, c1, a1, l2, c2, a2;
	const unsigned port = listen_connect(&l1, &c1, &a1);
	listen_connect(&l2, &c2, &a2);
	rp_smb_peers peers = { .n = 0 };
	assert_int_equal(rp__smb_peers_learn(&peers, port), 1);
	assert_int_equal(rp__smb_peers_learn(&peers, port), 1); /* one address, learned once */
	assert_int_equal(rp__smb_peers_cut(&peers), 1);
	struct pollfd pf = { .fd = c1, .events = POLLIN };
	assert_int_equal(poll(&pf, 1, 0), 1); /* readable at once: end of stream */
	char b;
	assert_int_equal(recv(c1, &b, 1, 0), 0);
	pf.fd = c2;
	assert_int_equal(poll(&pf, 1, 0), 0); /* the other connection still waits */
	/* Nothing known, nothing cut. */
	rp_smb_peers none = { .n = 0 };
	assert_int_equal(rp__smb_peers_cut(&none), 0);
	const int fds[] = { l1, c1, a1, l2, c2, a2 };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

/*
 * A request unanswered for the given time is counted, on the server's sockets
 * only: not before it was sent, not once answered, not an idle connection.
 */
static void test_peers_stalled(void **state)
{
	(void)state;
	int l1, c1, a1;
	const unsigned port = listen_connect(&l1, &c1, &a1);
	rp_smb_peers peers = { .n = 0 };
	assert_int_equal(rp__smb_peers_learn(&peers, port), 1);
	const struct timespec wait = { 0, 150000000L }; /* well past the 50 ms asked, in jiffies of any HZ */
	nanosleep(&wait, NULL);
	assert_int_equal(rp__smb_peers_stalled(&peers, 50), 0); /* idle: nothing asked */
	assert_int_equal(send(c1, "q", 1, 0), 1);
	nanosleep(&wait, NULL);
	assert_int_equal(rp__smb_peers_stalled(&peers, 50), 1); /* asked, no answer for 150 ms */
	assert_int_equal(rp__smb_peers_stalled(&peers, 60000), 0); /* not for a minute */
	char b;
	assert_int_equal(recv(a1, &b, 1, 0), 1);
	assert_int_equal(send(a1, "a", 1, 0), 1);
	assert_int_equal(recv(c1, &b, 1, 0), 1);
	nanosleep(&wait, NULL);
	assert_int_equal(rp__smb_peers_stalled(&peers, 50), 0); /* answered, then idle */
	rp_smb_peers none = { .n = 0 };
	assert_int_equal(rp__smb_peers_stalled(&none, 0), 0);
	const int fds[] = { l1, c1, a1 };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		close(fds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_target),
		cmocka_unit_test(test_target_refused),
		cmocka_unit_test(test_url_join),
		cmocka_unit_test(test_path_reserved),
		cmocka_unit_test(test_authfile),
		cmocka_unit_test(test_authfile_errors),
		cmocka_unit_test(test_user_grammar),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_peers_cut),
		cmocka_unit_test(test_peers_stalled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
