#!/usr/bin/env bash
# The file servers the file-service tests talk to, all on 127.0.0.1 and all for one local account
# (user `portico-files`, password `portico-files`, home /srv/portico-files):
#   SFTP    OpenSSH sshd, its own config, port 2222
#   FTP     vsftpd, port 2121 (passive ports 30000-30100; explicit FTPS with the snakeoil certificate)
#   WebDAV  rclone serve webdav, port 8088, root /srv/portico-files/dav, basic auth
# Run as root (.ci/run calls it). Installs the Debian packages when missing, writes the configs and
# starts each server unless its port answers already. The tests read PORTICO_TEST_{SFTP,FTP,WEBDAV}_URL
# when set instead of these defaults.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then echo "$0: run as root" >&2; exit 1; fi

USER_NAME=portico-files
USER_PASS=portico-files
HOME_DIR=/srv/portico-files
up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
wait_up() { for _ in $(seq 1 30); do up "$1" && return 0; sleep 1; done; echo "$2 is still down on port $1" >&2; return 1; }

missing=()
[ -x /usr/sbin/sshd ] || missing+=(openssh-server)
[ -x /usr/sbin/vsftpd ] || missing+=(vsftpd)
command -v rclone >/dev/null 2>&1 || missing+=(rclone)
[ -f /etc/ssl/certs/ssl-cert-snakeoil.pem ] || missing+=(ssl-cert)
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -f /etc/ssl/certs/ssl-cert-snakeoil.pem ] || make-ssl-cert generate-default-snakeoil

# The account (a login shell: vsftpd's PAM config wants one listed in /etc/shells).
if ! id "$USER_NAME" >/dev/null 2>&1; then
  useradd --home-dir "$HOME_DIR" --create-home --shell /bin/bash "$USER_NAME"
fi
echo "$USER_NAME:$USER_PASS" | chpasswd
mkdir -p "$HOME_DIR/dav"
chown -R "$USER_NAME:$USER_NAME" "$HOME_DIR"

# SFTP: a second sshd with its own config and host key, password login for the test account only.
mkdir -p /etc/portico-files /run/sshd
[ -f /etc/portico-files/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -f /etc/portico-files/ssh_host_ed25519_key
cat > /etc/portico-files/sshd_config <<CONF
Port 2222
ListenAddress 127.0.0.1
HostKey /etc/portico-files/ssh_host_ed25519_key
PidFile /run/portico-files-sshd.pid
PasswordAuthentication yes
KbdInteractiveAuthentication no
PermitRootLogin no
UsePAM yes
AllowUsers $USER_NAME
Subsystem sftp internal-sftp
CONF
if ! up 2222; then /usr/sbin/sshd -f /etc/portico-files/sshd_config; wait_up 2222 sshd; fi

# FTP: a vsftpd of its own (standalone, port 2121), FTPS allowed but not required.
mkdir -p /var/run/vsftpd/empty
cat > /etc/portico-files/vsftpd.conf <<CONF
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=2121
background=YES
anonymous_enable=NO
local_enable=YES
write_enable=YES
local_umask=022
userlist_enable=YES
userlist_deny=NO
userlist_file=/etc/portico-files/vsftpd.users
pasv_enable=YES
pasv_min_port=30000
pasv_max_port=30100
pasv_address=127.0.0.1
secure_chroot_dir=/var/run/vsftpd/empty
pam_service_name=vsftpd
seccomp_sandbox=NO
utf8_filesystem=YES
ssl_enable=YES
allow_anon_ssl=NO
force_local_data_ssl=NO
force_local_logins_ssl=NO
require_ssl_reuse=NO
ssl_ciphers=HIGH
rsa_cert_file=/etc/ssl/certs/ssl-cert-snakeoil.pem
rsa_private_key_file=/etc/ssl/private/ssl-cert-snakeoil.key
CONF
echo "$USER_NAME" > /etc/portico-files/vsftpd.users
if ! up 2121; then /usr/sbin/vsftpd /etc/portico-files/vsftpd.conf; wait_up 2121 vsftpd; fi

# WebDAV: rclone serving the account's dav folder, as that account.
if ! up 8088; then
  start-stop-daemon --start --background --chuid "$USER_NAME" --make-pidfile --pidfile /run/portico-files-webdav.pid \
    --exec "$(command -v rclone)" -- serve webdav "$HOME_DIR/dav" --addr 127.0.0.1:8088 \
    --user "$USER_NAME" --pass "$USER_PASS" --config /dev/null --log-file /tmp/portico-files-webdav.log
  wait_up 8088 "rclone webdav"
fi
echo "file servers up: sftp 2222, ftp 2121, webdav 8088"
