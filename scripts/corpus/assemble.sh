#!/usr/bin/env bash
# Assembles test/corpus/real/ from Debian packages and the project's npm dependencies (run once, by
# hand; the result is committed). Needs apt-get, dpkg-deb, qpdf and network access to Debian's
# archive. Every file's origin (package, version, path, licence, trimming) goes into
# test/corpus/real/manifest.tsv. Images and workbooks made from these texts
# come from scripts/corpus/render.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=test/corpus/real
work=${CORPUS_WORK:-/tmp/archivist-corpus}
mkdir -p "$work/x" "$out"
packages="apt-doc asymptote-doc autoconf-doc bash-doc debian-faq debian-handbook debian-reference-en
  developers-reference distro-info-data doc-debian flex-doc gettext-doc git-doc gnuplot-doc m4-doc
  maint-guide zsh-doc"
for p in $packages; do
  if ! ls "$work/$p"_*.deb >/dev/null 2>&1; then (cd "$work" && apt-get download "$p" >/dev/null 2>&1); fi
  [ -d "$work/x/$p" ] || dpkg-deb -x "$(ls "$work/$p"_*.deb | head -1)" "$work/x/$p"
done
version() { dpkg-deb -f "$(ls "$work/$1"_*.deb | head -1)" Version; }

printf 'id\tfile\tsource\tversion\tpath\tlicence\ttrim\n' >"$out/manifest.tsv"
# add ID EXT PACKAGE PATH LICENCE [TRIM]  — TRIM: pages:A-B (PDF), lines:N (text), gz (gunzip)
add() {
  local id=$1 ext=$2 pkg=$3 path=$4 licence=$5 trim=${6:-whole}
  local src="$work/x/$pkg$path" dest="$out/$id$ext" tmp
  case $trim in
    whole) cp "$src" "$dest" ;;
    gz) zcat "$src" >"$dest" ;;
    pages:*) tmp=$src
      if [[ $src == *.gz ]]; then tmp="$work/$id.pdf"; zcat "$src" >"$tmp"; fi
      qpdf --empty --pages "$tmp" "${trim#pages:}" -- "$dest" ;;
    lines:*) if [[ $src == *.gz ]]; then zcat "$src"; else cat "$src"; fi | head -n "${trim#lines:}" >"$dest" || true ;;
  esac
  printf '%s\t%s\tdebian:%s\t%s\t%s\t%s\t%s\n' "$id" "$id$ext" "$pkg" "$(version "$pkg")" "$path" "$licence" "$trim" >>"$out/manifest.tsv"
}
addnpm() {
  local id=$1 ext=$2 pkg=$3 file=$4
  local meta=node_modules/$pkg/package.json
  cp "node_modules/$pkg/$file" "$out/$id$ext"
  printf '%s\t%s\tnpm:%s\t%s\t%s\t%s\twhole\n' "$id" "$id$ext" "$pkg" \
    "$(node -p "require('./$meta').version")" "$file" "$(node -p "require('./$meta').license")" >>"$out/manifest.tsv"
}

DR=/usr/share/debian-reference MG=/usr/share/doc/maint-guide/html FAQ=/usr/share/doc/debian/FAQ
DEV=/usr/share/developers-reference HB=/usr/share/doc/debian-handbook/html
FAQL='Debian FAQ licence (verbatim and modified copies permitted)' GFDL='GFDL-1.3+ (no invariant sections)'
# HTML from documentation generators
add html-docbook-maint-checkit .html maint-guide "$MG/checkit.en.html" 'GPL-2.0+ or MIT'
add html-docbook-maint-modify .html maint-guide "$MG/modify.en.html" 'GPL-2.0+ or MIT'
add html-docbook-maint-upload .html maint-guide "$MG/upload.en.html" 'GPL-2.0+ or MIT'
add html-docbook-faq-kernel .html debian-faq "$FAQ/kernel.en.html" "$FAQL"
add html-docbook-faq-software .html debian-faq "$FAQ/software.en.html" "$FAQL"
add html-docbook-ref-apa .html debian-reference-en "$DR/apa.en.html" 'GPL-2.0+'
add html-docbook-ref-ch08 .html debian-reference-en "$DR/ch08.en.html" 'GPL-2.0+'
add html-publican-handbook-en .html debian-handbook "$HB/en-US/sect.apt-cache.html" 'GPL-2.0+ or CC-BY-SA-3.0'
add html-publican-handbook-ar .html debian-handbook "$HB/ar-MA/sect.apt-cache.html" 'GPL-2.0+ or CC-BY-SA-3.0'
add html-sphinx-devref-scope .html developers-reference "$DEV/scope.html" 'GPL-2'
add html-sphinx-devref-newmaint .html developers-reference "$DEV/new-maintainer.html" 'GPL-2'
add html-sphinx-devref-l10n .html developers-reference "$DEV/l10n.html" 'GPL-2'
add html-texinfo-m4-arguments .html m4-doc /usr/share/doc/m4/Arguments.html "$GFDL"
add html-texinfo-m4-ifelse .html m4-doc /usr/share/doc/m4/Ifelse.html "$GFDL"
add html-texinfo-flex-patterns .html flex-doc /usr/share/doc/flex-doc/html/Patterns.html 'FLEX (BSD-style)'
add html-texinfo-asy-labels .html asymptote-doc /usr/share/doc/asymptote/html/label.html 'LGPL-3+'
add html-texi2html-gettext-14 .html gettext-doc /usr/share/doc/gettext/gettext_14.html "$GFDL"
add html-texi2html-zsh-jobs .html zsh-doc /usr/share/doc/zsh-common/html/Jobs-_0026-Signals.html 'zsh licence (MIT-style)'
add html-asciidoc-git-stash .html git-doc /usr/share/doc/git-doc/git-stash.html 'GPL-2'
# Markdown
add md-apt-progress .md apt-doc /usr/share/doc/apt/progress-reporting.md 'GPL-2.0+'
add md-apt-srv .md apt-doc /usr/share/doc/apt/srv-records-support.md 'GPL-2.0+'
add md-flex-readme .md flex-doc /usr/share/doc/flex-doc/README.md.gz 'FLEX (BSD-style)' gz
addnpm md-espree-readme .md espree README.md
addnpm md-mobx-readme .md mobx README.md
addnpm md-prettier-readme .md prettier README.md
addnpm md-protobufjs-readme .md protobufjs README.md
addnpm md-zlibjs-readme .md zlibjs README.md
addnpm md-chalk-readme .md chalk readme.md
# Plain text and reStructuredText
add txt-social-contract .txt doc-debian /usr/share/doc/debian/social-contract.txt.gz 'Open Publication / GPL (doc-debian)' gz
add txt-bug-reporting .txt doc-debian /usr/share/doc/debian/bug-reporting.txt.gz 'GPL (doc-debian)' gz
add txt-faq-head .txt debian-faq "$FAQ/debian-faq.en.txt.gz" "$FAQL" lines:400
add txt-asciidoc-git-stash .txt git-doc /usr/share/doc/git-doc/git-stash.txt 'GPL-2'
add txt-apt-guide .txt apt-doc /usr/share/doc/apt-doc/guide.text.gz 'GPL-2.0+' lines:300
add rst-devref-scope .rst developers-reference "$DEV/_sources/scope.rst.txt" 'GPL-2'
add rst-devref-l10n .rst developers-reference "$DEV/_sources/l10n.rst.txt" 'GPL-2'
add rst-devref-newmaint .rst developers-reference "$DEV/_sources/new-maintainer.rst.txt" 'GPL-2'
# PDF, a few pages each
add pdf-debian-reference .pdf debian-reference-en "$DR/debian-reference.en.pdf" 'GPL-2.0+' pages:22-25
add pdf-debian-reference-tables .pdf debian-reference-en "$DR/debian-reference.en.pdf" 'GPL-2.0+' pages:38-39
add pdf-devref .pdf developers-reference "$DEV/developers-reference.pdf" 'GPL-2' pages:10-13
add pdf-bashref .pdf bash-doc /usr/share/doc/bash/bashref.pdf "$GFDL" pages:10-13
add pdf-zsh .pdf zsh-doc /usr/share/doc/zsh-common/zsh.pdf 'zsh licence (MIT-style)' pages:20-23
add pdf-gnuplot .pdf gnuplot-doc /usr/share/doc/gnuplot/gnuplot.pdf 'gnuplot licence' pages:30-33
add pdf-asymptote .pdf asymptote-doc /usr/share/doc/asymptote/asymptote.pdf 'LGPL-3+' pages:15-18
add pdf-faq .pdf debian-faq "$FAQ/debian-faq.en.pdf.gz" "$FAQL" pages:8-11
add pdf-autoconf .pdf autoconf-doc /usr/share/doc/autoconf/autoconf.pdf.gz "$GFDL" pages:20-23
# Data
add csv-debian-releases .csv distro-info-data /usr/share/distro-info/debian.csv 'ISC'
add csv-ubuntu-releases .csv distro-info-data /usr/share/distro-info/ubuntu.csv 'ISC'
addnpm json-readability-package .json @mozilla/readability package.json
